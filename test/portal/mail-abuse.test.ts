// The portal's mail can neither tell who has an account nor be used to flood an inbox. Over real HTTP against the
// whole stack, with the service's SMTP_URL pointing at an SMTP server this file controls (it can hold its reply,
// refuse a mail for good, or refuse it once):
// - "send me a link" is answered without waiting for SMTP: the page arrives while the server still holds the mail,
//   and the mail arrives once the server answers; with SMTP refusing, an address with an account gets the same 200
//   page as one without (never a 500), and the failure is logged at warn without the link; a refusal for now is
//   tried again. No timing is measured: the order of events shows it.
// - invites are limited per address per team per day and per team per hour: past a limit the team page answers 429
//   with Retry-After and a message, sends nothing, writes no link and changes no member.

import { readFileSync } from "node:fs";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVITES_PER_ADDRESS_PER_DAY, INVITES_PER_TEAM_PER_HOUR } from "../../api/src/domain/portal.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import type { Store } from "../../api/src/store/index.js";
import { PortalClient, type Reply } from "../support/portalClient.js";
import { until } from "../support/processes.js";
import { parseMail, type CaughtMail } from "../support/smtp.js";
import { createAccount, startStack, type Stack } from "../support/stack.js";
import { rawSqlite } from "../support/store.js";

const OWNER = "owner@example.com";
const NOBODY = "nobody@example.com";

/** What the SMTP server does with the next mails: accept, hold its reply until released, refuse (550), refuse once (451). */
type Mode = "accept" | "hold" | "refuse" | "refuse-once";

/** An SMTP server whose answer to each mail the test chooses, and the mails it accepted. */
class GatedSmtp {
  mode: Mode = "accept";
  readonly accepted: CaughtMail[] = [];
  /** Mails whose data arrived and whose reply is held, with the call that answers them. */
  readonly held: { to: string[]; answer: () => void }[] = [];
  refusals = 0;
  port = 0;
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", callback);
      stream.on("end", () => {
        const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()) };
        const accept = () => {
          this.accepted.push(parseMail(Buffer.concat(chunks).toString("utf8"), envelope));
          callback();
        };
        const refuse = (code: number, message: string) => {
          this.refusals++;
          callback(Object.assign(new Error(message), { responseCode: code }));
        };
        if (this.mode === "hold") this.held.push({ to: envelope.to, answer: accept });
        else if (this.mode === "refuse") refuse(550, "mailbox unavailable (test refusal)");
        else if (this.mode === "refuse-once") {
          this.mode = "accept";
          refuse(451, "try again later (test refusal)");
        } else accept();
      });
    },
  });

  async listen(): Promise<void> {
    this.port = await new Promise<number>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => {
        const address = this.server.server.address();
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("smtp-server did not report its port"));
      });
    });
  }

  to(address: string): CaughtMail[] {
    return this.accepted.filter((m) => m.to.includes(address));
  }

  /** Waits for the n-th accepted mail to `address`. */
  next(address: string, n: number, timeoutMs = 30_000): Promise<CaughtMail> {
    return until(`mail #${n} to ${address}`, async () => this.to(address)[n - 1], timeoutMs, 25);
  }

  /** Answers every held mail (accepting it) and goes back to accepting. */
  release(): void {
    this.mode = "accept";
    for (const h of this.held.splice(0)) h.answer();
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let stack: Stack;
let store: Store;
let smtp: GatedSmtp;
let accountId: string;
let owner: PortalClient;
let ownerCsrf: string;

function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no _csrf field in the page:\n${html.slice(0, 2000)}`);
  return match[1]!;
}

/** "Send me a link" for `email` from a fresh signed-out browser. */
async function askForLink(email: string, from: string): Promise<Reply> {
  const client = new PortalClient(stack.baseUrl);
  const page = await client.get("/portal/sign-in", { "x-forwarded-for": from });
  expect(page.status).toBe(200);
  return client.postForm("/portal/sign-in", { _csrf: csrfOf(page.text), email }, { "x-forwarded-for": from });
}

/** `promise`'s value, or a failure saying `what` did not happen within `ms` (a wait for a hang, not a timing). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const serviceLog = () => readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
const linksTo = (email: string) => rawSqlite(store).prepare("SELECT COUNT(*) FROM portal_links WHERE email = ?").pluck().get(email) as number;

beforeAll(async () => {
  smtp = new GatedSmtp();
  await smtp.listen();
  stack = await startStack({ extraEnv: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, TRUSTED_PROXY_HOPS: "1" } });
  store = await openServiceStore(stack.storeLocation);
  accountId = (await createAccount(stack, OWNER)).accountId;
  // The owner signs in by an emailed link, for the team page.
  expect((await askForLink(OWNER, "192.0.2.1")).status).toBe(200);
  const link = new URL((await smtp.next(OWNER, 1)).links[0]!);
  owner = new PortalClient(stack.baseUrl);
  await owner.get(`${link.pathname}${link.search}`);
  expect((await owner.post("/portal/auth", { token: link.searchParams.get("token")! })).status).toBe(303);
  ownerCsrf = csrfOf((await owner.get("/portal/team")).text);
}, 240_000);

afterAll(async () => {
  await store?.close();
  await stack?.stop();
  await smtp?.close();
});

describe("send me a link: the answer never waits for SMTP", () => {
  it("answers while the SMTP server still holds the mail; the mail arrives once the server answers", async () => {
    const mailed = smtp.to(OWNER).length;
    smtp.mode = "hold";
    try {
      const reply = await within(askForLink(OWNER, "192.0.2.2"), 20_000, "no answer while the SMTP server held its reply: the request waited for SMTP");
      expect(reply.status).toBe(200);
      expect(reply.text).toContain("If this address is on a team, a sign-in link is on its way.");
      // Answered, and the server has accepted nothing yet.
      expect(smtp.to(OWNER)).toHaveLength(mailed);
      await until("the mail to reach the SMTP server", async () => (smtp.held.some((h) => h.to.includes(OWNER)) ? true : undefined), 20_000, 25);
    } finally {
      smtp.release();
    }
    const mail = await smtp.next(OWNER, mailed + 1);
    expect(mail.links).toHaveLength(1);
  });

  it("with SMTP refusing, an address with an account gets the same 200 page as one without, and the failure is logged at warn", async () => {
    smtp.mode = "refuse";
    const refusalsBefore = smtp.refusals;
    try {
      const withAccount = await askForLink(OWNER, "192.0.2.3");
      const withoutAccount = await askForLink(NOBODY, "192.0.2.3");
      expect(withAccount.status, withAccount.text.slice(0, 500)).toBe(200);
      expect(withoutAccount.status).toBe(200);
      expect(withoutAccount.text).toBe(withAccount.text);
      await until("the SMTP server to refuse the mail", async () => (smtp.refusals > refusalsBefore ? true : undefined), 20_000, 25);
      const warned = await until(
        "a warn line for the refused mail in service.log",
        async () => serviceLog().split("\n").find((l) => l.includes('"level":40') && l.includes(OWNER) && l.includes("test refusal")),
        20_000,
        100,
      );
      expect(warned).not.toMatch(/token=/);
      expect(serviceLog()).not.toMatch(/"level":50.*portal error/);
    } finally {
      smtp.mode = "accept";
    }
  });

  it("a mail the server refuses for now (451) is sent again, and arrives", async () => {
    const address = "second-owner@example.com";
    await stack.cli("member", "add", "--account", accountId, "--email", address, "--role", "owner");
    smtp.mode = "refuse-once";
    const reply = await askForLink(address, "192.0.2.4");
    expect(reply.status).toBe(200);
    const mail = await smtp.next(address, 1, 60_000);
    expect(mail.links).toHaveLength(1);
    expect(smtp.mode).toBe("accept");
  });
});

describe("invites are limited", () => {
  const invite = (email: string, role = "member") => owner.postForm("/portal/team/invite", { _csrf: ownerCsrf, email, role });
  const members = async () => (await store.accounts.members(accountId)).map((m) => `${m.email}:${m.role}`).sort();

  it(`sends at most ${INVITES_PER_ADDRESS_PER_DAY} invites to one address per team in 24 hours; the next is 429 with Retry-After and changes nothing`, async () => {
    const address = "invited-often@example.com";
    for (let i = 1; i <= INVITES_PER_ADDRESS_PER_DAY; i++) {
      const reply = await invite(address);
      expect(reply.status, `invite ${i}: ${reply.text.slice(0, 300)}`).toBe(200);
    }
    await smtp.next(address, INVITES_PER_ADDRESS_PER_DAY);
    const before = { members: await members(), links: linksTo(address), mails: smtp.to(address).length };
    // The eighth invite of the penetration test; a role change asked with it is not made either.
    const refused = await invite(address, "owner");
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    expect(refused.text).toContain(`${address} was invited ${INVITES_PER_ADDRESS_PER_DAY} times in the last 24 hours`);
    // Another spelling of the address is the same address.
    expect((await invite(address.toUpperCase())).status).toBe(429);
    await until("the SMTP server to be idle", async () => (smtp.held.length === 0 ? true : undefined), 5_000, 25);
    expect({ members: await members(), links: linksTo(address), mails: smtp.to(address).length }).toEqual(before);
  });

  it(`sends at most ${INVITES_PER_TEAM_PER_HOUR} invites per team in an hour; the next is 429 with Retry-After and adds no one`, async () => {
    const sent = rawSqlite(store).prepare("SELECT COUNT(*) FROM portal_links WHERE purpose = 'invite' AND account_id = ?").pluck().get(accountId) as number;
    for (let i = sent + 1; i <= INVITES_PER_TEAM_PER_HOUR; i++) {
      const reply = await invite(`crowd-${i}@example.com`);
      expect(reply.status, `invite ${i}: ${reply.text.slice(0, 300)}`).toBe(200);
    }
    const before = await members();
    const refused = await invite("one-too-many@example.com");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    expect(refused.text).toContain(`${INVITES_PER_TEAM_PER_HOUR} invites in the last hour`);
    expect(await members()).toEqual(before);
    expect(linksTo("one-too-many@example.com")).toBe(0);
  });
});
