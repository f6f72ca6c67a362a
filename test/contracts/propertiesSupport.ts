/**
 * What lets PrizeDraw.properties.test.ts check every command of 10,000 sequences in minutes: the same checks and
 * calls, with the costs that are not the check or the call itself taken out.
 */
import { expect } from "chai";
import { AbiCoder, ErrorFragment, Result, type EventFragment, type FunctionFragment, type Interface, type ParamType } from "ethers";
import { network } from "hardhat";

const coder = AbiCoder.defaultAbiCoder();

type Listeners = { eventNames(): unknown[] };
/** Hardhat's EdrProviderWrapper (hardhat 2.2x): the in-process chain (`_provider`, replaced by hardhat_reset). */
type EdrWrapper = {
  _provider: { handleRequest(json: string): Promise<{ data: string | object }> };
  _node: { _vm: { events: Listeners; evm: { events: Listeners } } };
};

function isEdrWrapper(x: unknown): x is EdrWrapper {
  const w = x as Partial<EdrWrapper> | undefined;
  return (
    typeof w?._provider?.handleRequest === "function" &&
    typeof w._node?._vm?.events?.eventNames === "function" &&
    typeof w._node._vm.evm?.events?.eventNames === "function"
  );
}

/** The EdrProviderWrapper under network.provider's wrappers, once found (before its first request it is not there). */
let edr: EdrWrapper | undefined;
function edrWrapper(): EdrWrapper | undefined {
  if (edr) return edr;
  let p: unknown = network.provider;
  for (let i = 0; i < 16 && p && typeof p === "object" && !isEdrWrapper(p); i++) {
    const o = p as Record<string, unknown>;
    p = o._wrappedProvider ?? o._wrapped ?? o.provider;
  }
  if (isEdrWrapper(p)) edr = p;
  return edr;
}

/**
 * A JSON-RPC request to Hardhat's in-process chain, asked directly when it can be: under network.provider, six
 * wrappers fill in what these requests already give (sender, gas, fees), and on a revert Hardhat builds a Solidity
 * stack trace (the chain computes it, then source maps rewrite a JavaScript stack) that the test never reads (it
 * decodes the revert data). That costs more than the call: a reverted transaction takes about half the time asked
 * directly. Through network.provider when something listens to the execution (a coverage run: Hardhat then replays
 * every trace to it) or when this Hardhat is not built as expected. A failure rejects with the error's `data` (the
 * revert data, under `data` again) as network.provider's would.
 */
export async function rpc(method: string, params: readonly unknown[] = []): Promise<unknown> {
  const w = edrWrapper();
  if (!w || w._node._vm.events.eventNames().length > 0 || w._node._vm.evm.events.eventNames().length > 0) {
    return network.provider.request({ method, params: [...params] });
  }
  const response = await w._provider.handleRequest(JSON.stringify({ method, params }));
  const body = (typeof response.data === "string" ? JSON.parse(response.data) : response.data) as {
    result?: unknown;
    error?: { code?: number; message: string; data?: unknown };
  };
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
  return body.result;
}

/**
 * expect(actual, message) for the checks made thousands of times a sequence. The comparison is made here and chai
 * is asked only when it fails, with the same assertion, so a check passes or fails exactly as chai's would (chai
 * decides every failure: hardhat-chai-matchers' equality, which also takes 1 for 1n, included). Asking chai every
 * time costs more than everything else in a check: hardhat-chai-matchers makes each equality look modules up.
 */
export function verify(actual: unknown, message?: string) {
  const report = () => expect(actual, message);
  const isNumber = (pass: (a: number | bigint) => boolean) => (typeof actual === "number" || typeof actual === "bigint") && pass(actual);
  return {
    to: {
      equal(expected: unknown): void {
        if (actual !== expected) report().to.equal(expected);
      },
      deep: {
        /** Lists of plain values: equal item by item (===), else chai's deep equality decides. */
        equal(expected: readonly unknown[]): void {
          const same = Array.isArray(actual) && actual.length === expected.length && actual.every((x, i) => x === expected[i]);
          if (!same) report().to.deep.equal(expected);
        },
      },
      include(item: unknown): void {
        if (!(Array.isArray(actual) && actual.indexOf(item) >= 0)) report().to.include(item);
      },
      not: {
        equal(other: unknown): void {
          if (actual === other) report().to.not.equal(other);
        },
      },
      be: {
        oneOf(list: readonly unknown[]): void {
          if (list.indexOf(actual) < 0) report().to.be.oneOf([...list]);
        },
        lessThan(n: number): void {
          if (!isNumber((a) => a < n)) report().to.be.lessThan(n);
        },
        below(n: number): void {
          if (!isNumber((a) => a < n)) report().to.be.below(n);
        },
        at: {
          least(n: number): void {
            if (!isNumber((a) => a >= n)) report().to.be.at.least(n);
          },
        },
      },
    },
  };
}

/** A decoded event, error or call: its name and arguments (an ethers Result, read by name or position). */
export type Decoded = { name: string; args: Result };

/**
 * An Interface whose selectors and topics are computed once. ethers computes a fragment's selector or topic (a
 * keccak256) whenever it is read, and finds the fragment of a selector or topic by computing every fragment's.
 */
export class Abi {
  private readonly errors = new Map<string, ErrorFragment>();
  private readonly events = new Map<string, { fragment: EventFragment; indexed: ParamType[]; plain: ParamType[] }>();
  private readonly functions = new Map<string, FunctionFragment>();
  /** By name: a function's fragment and selector (null: the name is overloaded). */
  private readonly named = new Map<string, { fragment: FunctionFragment; selector: string } | null>();

  constructor(readonly iface: Interface) {
    // Interface.parseError knows Solidity's own two as well.
    for (const f of [ErrorFragment.from("error Error(string)"), ErrorFragment.from("error Panic(uint256)"), ...iface.fragments.filter(ErrorFragment.isFragment)]) {
      this.errors.set(f.selector, f);
    }
    iface.forEachEvent((f) => {
      if (!f.anonymous) this.events.set(f.topicHash, { fragment: f, indexed: f.inputs.filter((p) => p.indexed), plain: f.inputs.filter((p) => !p.indexed) });
    });
    iface.forEachFunction((f) => {
      const selector = f.selector;
      this.functions.set(selector, f);
      this.named.set(f.name, this.named.has(f.name) ? null : { fragment: f, selector });
    });
  }

  /** The selector of function `name`. */
  selector(name: string): string {
    const f = this.named.get(name);
    if (!f) throw new Error(`${name}: no such function, or an overloaded one`);
    return f.selector;
  }

  /** The calldata of `name(...args)`, as Interface.encodeFunctionData makes it. */
  encode(name: string, args: readonly unknown[]): string {
    const f = this.named.get(name);
    if (!f) throw new Error(`${name}: no such function, or an overloaded one`);
    return f.selector + coder.encode(f.fragment.inputs, args).slice(2);
  }

  /** A log of this interface (null: not one of its events), as Interface.parseLog reads it. */
  parseLog(log: { topics: readonly string[]; data: string }): Decoded | null {
    const e = this.events.get(log.topics[0]);
    if (!e) return null;
    if (log.topics.length !== e.indexed.length + 1) throw new Error(`${e.fragment.name}: ${log.topics.length} topics`);
    // Every indexed parameter here is a value type, stored in its topic as it would be ABI-encoded.
    const indexed = e.indexed.map((p, i) => {
      if (p.type === "string" || p.type === "bytes" || p.isArray() || p.isTuple()) throw new Error(`${e.fragment.name}: indexed ${p.type} is kept as a hash`);
      return coder.decode([p], log.topics[i + 1])[0];
    });
    const plain = coder.decode(e.plain, log.data);
    let [i, j] = [0, 0];
    const values = e.fragment.inputs.map((p) => (p.indexed ? indexed[i++] : plain[j++]));
    return { name: e.fragment.name, args: Result.fromItems(values, e.fragment.inputs.map((p) => p.name)) };
  }

  /** Revert data of one of this interface's custom errors (null: none of them). */
  parseError(data: string): Decoded | null {
    const f = this.errors.get(data.slice(0, 10));
    if (!f) return null;
    return { name: f.name, args: coder.decode(f.inputs, `0x${data.slice(10)}`) };
  }

  /** Calldata of one of this interface's functions, as Interface.parseTransaction reads it. */
  parseCall(data: string): Decoded {
    const f = this.functions.get(data.slice(0, 10));
    if (!f) throw new Error(`no function with selector ${data.slice(0, 10)}`);
    return { name: f.name, args: coder.decode(f.inputs, `0x${data.slice(10)}`) };
  }
}
