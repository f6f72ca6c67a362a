/**
 * Runs `work` one at a time: a call while a run is under way returns that run and queues exactly one more after it
 * (however many calls came meanwhile). Used by the keeper's cycle and the pull and webhook timers' arming, whose
 * runs read the store and must not overlap. `work` must not reject: the queued run is not awaited by anyone.
 */
export class SerialRun {
  private current: Promise<void> | null = null;
  private again = false;

  constructor(private readonly work: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.current) {
      this.again = true;
      return this.current;
    }
    const run = this.work().finally(() => {
      this.current = null;
      if (this.again) {
        this.again = false;
        void this.run();
      }
    });
    this.current = run;
    return run;
  }
}
