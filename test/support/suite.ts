/**
 * A suite's real stack (test/support/stack.ts) and its first account, started before the suite's tests and stopped
 * after them: the few lines every stack suite began with, said once, with the suite's own set-up after them.
 */
import { afterAll, beforeAll } from "vitest";
import { createAccount, startStack, type Stack } from "./stack.js";

export type SuiteStack = { stack: Stack; accountId: string; key: string };

type StackOptions = Parameters<typeof startStack>[0];

/**
 * Registers the suite's beforeAll (start the stack with `options`, create an account for `email` with a key) and
 * afterAll (stop it); `use` receives them once started, for the suite's own variables, and may go on to set up
 * what every test of the suite shares (a campaign, say): the beforeAll waits for it. `options` may be a function,
 * called when the stack starts, for options known only then (a server an earlier beforeAll started).
 */
export function useStack(email: string, use: (started: SuiteStack) => unknown, options: StackOptions | (() => StackOptions) = {}): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(typeof options === "function" ? options() : options);
    await use({ stack, ...(await createAccount(stack, email)) });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });
}
