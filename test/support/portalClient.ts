// The portal tests' browser without a browser (test/portal/*.test.ts): a cookie jar, forms posted as a browser posts
// them (with the CSRF token `_csrf` the last page carried, or exactly as given), redirects not followed. And the
// sign-in by the link the test outbox (/portal/outbox) shows.

import { expect } from "vitest";
import type { Stack } from "./stack.js";

/** What a request answered: the status, the body's text, the Location header, all headers and the raw Set-Cookie lines. */
export type Reply = { status: number; text: string; location: string | null; headers: Headers; setCookies: string[] };

/** A browser without a browser: a cookie jar, forms posted as a browser posts them, redirects not followed. */
export class PortalClient {
  readonly jar = new Map<string, string>();
  /** The CSRF token (`_csrf`) of the last page that carried one; `post` and `upload` send it. */
  csrf = "";
  constructor(private readonly base: string) {}

  async request(method: "GET" | "POST", route: string, options: { body?: URLSearchParams | FormData; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (options.body instanceof URLSearchParams) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(`${this.base}${route}`, { method, headers, body: options.body, redirect: "manual" });
    const setCookies = response.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /;\s*max-age=0/i.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: response.status, text, location: response.headers.get("location"), headers: response.headers, setCookies };
  }

  get(route: string, headers?: Record<string, string>): Promise<Reply> {
    return this.request("GET", route, { headers });
  }

  /** Posts `form` with the last page's CSRF token (a `_csrf` in `form` replaces it). */
  post(route: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Reply> {
    return this.postForm(route, { _csrf: this.csrf, ...form }, headers);
  }

  /** Posts `form` exactly as given: no CSRF token is added. */
  postForm(route: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Reply> {
    return this.request("POST", route, { body: new URLSearchParams(form), headers });
  }

  /** Posts a multipart form with the last page's CSRF token and one file under `name`. */
  upload(route: string, name: string, file: Blob, fileName: string): Promise<Reply> {
    const data = new FormData();
    data.set("_csrf", this.csrf);
    data.set(name, file, fileName);
    return this.request("POST", route, { body: data });
  }

  /** The session cookie's value, if the jar holds one. */
  get session(): string | undefined {
    return this.jar.get("pd_session");
  }
}

/** Signs in as `email` by the link the test outbox shows for it (the newest one); returns the signed-in client. */
export async function signIn(stack: Stack, email: string): Promise<PortalClient> {
  const client = new PortalClient(stack.baseUrl);
  await client.get("/portal/sign-in");
  expect((await client.post("/portal/sign-in", { email })).status).toBe(200);
  const outbox = await new PortalClient(stack.baseUrl).get("/portal/outbox");
  const mail = outbox.text.split("<article>").find((a) => a.includes(`To ${email}`));
  const link = /\/portal\/auth\?token=([A-Za-z0-9_-]+)/.exec(mail ?? "");
  expect(link, `a sign-in link for ${email} in the outbox`).not.toBeNull();
  await client.get(`/portal/auth?token=${link![1]}`);
  expect((await client.post("/portal/auth", { token: link![1]! })).status).toBe(303);
  expect((await client.get("/portal")).status).toBe(200);
  return client;
}

/**
 * The account's owner and a member (`memberEmail`, added through the CLI with the role member), each signed in by the
 * emailed link: the two people the portal screens are tried with.
 */
export async function ownerAndMember(stack: Stack, accountId: string, ownerEmail: string, memberEmail: string): Promise<{ owner: PortalClient; member: PortalClient }> {
  await stack.cli("member", "add", "--account", accountId, "--email", memberEmail, "--role", "member");
  const owner = await signIn(stack, ownerEmail);
  return { owner, member: await signIn(stack, memberEmail) };
}

/** The text of the field error a page shows for `field` (its id is referenced by the input's aria-describedby). */
export function fieldError(html: string, field: string): string | null {
  const id = `f-${field}-error`;
  if (!new RegExp(`aria-describedby="[^"]*${id}`).test(html)) return null;
  const match = new RegExp(`<p class="field-error" id="${id}">([^<]*)</p>`).exec(html);
  return match ? match[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&") : null;
}
