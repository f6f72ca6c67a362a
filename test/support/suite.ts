/**
 * A suite's real stack (test/support/stack.ts) and its first account, started before the suite's tests and stopped
 * after them: the few lines every stack suite began with, said once.
 */
import { afterAll, beforeAll } from "vitest";
import { createAccount, startStack, type Stack } from "./stack.js";

export type SuiteStack = { stack: Stack; accountId: string; key: string };

/**
 * Registers the suite's beforeAll (start the stack with `options`, create an account for `email` with a key) and
 * afterAll (stop it); `use` receives them once started, for the suite's own variables.
 */
export function useStack(email: string, use: (started: SuiteStack) => void, options: Parameters<typeof startStack>[0] = {}): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
    use({ stack, ...(await createAccount(stack, email)) });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });
}
