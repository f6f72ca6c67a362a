// A real SMTP server for tests (smtp-server on 127.0.0.1, a free port, no auth, no TLS): the service sends its
// portal mail here (SMTP_URL=smtp://127.0.0.1:PORT) and tests read what arrived, the sign-in links included.

import { SMTPServer } from "smtp-server";
import { until } from "./processes.js";

export type CaughtMail = {
  /** RCPT TO addresses, lower-cased. */
  to: string[];
  from: string;
  subject: string;
  /** The decoded text body (quoted-printable soft breaks and escapes undone). */
  text: string;
  /** The whole message as received. */
  raw: string;
  /** Portal links in the body: http(s)://.../portal/auth?token=... */
  links: string[];
};

export type SmtpCatcher = {
  port: number;
  /** smtp://127.0.0.1:PORT for the service's SMTP_URL. */
  url: string;
  mails: CaughtMail[];
  /** Mails received for `address` (case-insensitive). */
  to: (address: string) => CaughtMail[];
  /** Waits for the n-th (1-based, default: one more than now) mail to `address` and returns it. */
  next: (address: string, count?: number, timeoutMs?: number) => Promise<CaughtMail>;
  /** The portal link of the newest mail to `address`, waiting for it (as `next`). */
  nextLink: (address: string, count?: number, timeoutMs?: number) => Promise<string>;
  close: () => Promise<void>;
};

/** Undoes quoted-printable: soft line breaks (`=\r\n`) and `=XX` escapes (bytes, decoded as UTF-8). */
export function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i]!;
    if (c === "=" && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of Buffer.from(c, "utf8")) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A simple parser of one message (nodemailer's text-only mail): headers, then a 7bit, QP or base64 body. */
export function parseMail(raw: string, envelope: { from: string; to: string[] }): CaughtMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  let body = split < 0 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  // Unfold headers (a continuation line starts with whitespace).
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  if (encoding === "quoted-printable") body = decodeQuotedPrintable(body);
  else if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  const subjectRaw = headers.get("subject") ?? "";
  // Encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=), which nodemailer uses for long or non-ASCII subjects.
  const subject = subjectRaw.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_m, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replace(/_/g, " ")),
  );
  const links = [...body.matchAll(/https?:\/\/[^\s"'<>]+\/portal\/auth\?token=[A-Za-z0-9_%-]+/g)].map((m) => m[0]);
  return { to: envelope.to, from: envelope.from, subject, text: body, raw, links };
}

export async function startSmtp(): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    banner: "test catcher",
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", callback);
      stream.on("end", () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
        };
        mails.push(parseMail(Buffer.concat(chunks).toString("utf8"), envelope));
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.server.address();
      if (address && typeof address === "object") resolve(address.port);
      else reject(new Error("smtp-server did not report its port"));
    });
  });
  const to = (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase()));
  const next = (address: string, count?: number, timeoutMs = 10_000) => {
    const want = count ?? to(address).length + 1;
    return until(`mail #${want} to ${address}`, async () => to(address)[want - 1], timeoutMs, 25);
  };
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    to,
    next,
    nextLink: async (address, count, timeoutMs) => {
      const mail = await next(address, count, timeoutMs);
      const link = mail.links[0];
      if (!link) throw new Error(`mail to ${address} has no portal link:\n${mail.text}`);
      return link;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
