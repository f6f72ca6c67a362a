// The client package's webhook verifier, on the Standard Webhooks specification's published test vector and on
// the ways a delivery must be refused (another secret, a changed body, an old timestamp, missing headers).

import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "@prizedraw/client";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

function headers(signature: string, timestamp = String(TIMESTAMP), id = ID) {
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  throw new Error("the delivery was accepted");
}

describe("verifyWebhook", () => {
  it("reproduces the specification's test vector and accepts it", () => {
    expect(signWebhook(SECRET, ID, TIMESTAMP, BODY)).toBe(SIGNATURE);
    expect(verifyWebhook(SECRET, headers(SIGNATURE), BODY, { nowSeconds: TIMESTAMP + 10 })).toEqual({ id: ID, test: 2432232314 });
  });

  it("accepts any one matching signature among several, and any one of several secrets (rotation)", () => {
    const other = "whsec_" + Buffer.alloc(24, 7).toString("base64");
    expect(verifyWebhook(SECRET, headers(`v1,bm9wZQ== ${SIGNATURE}`), BODY, { nowSeconds: TIMESTAMP }).id).toBe(ID);
    expect(verifyWebhook([other, SECRET], headers(SIGNATURE), BODY, { nowSeconds: TIMESTAMP }).id).toBe(ID);
    expect(refusal(() => verifyWebhook(other, headers(SIGNATURE), BODY, { nowSeconds: TIMESTAMP }))).toBe("bad_signature");
  });

  it("refuses a changed body, id or timestamp, an old or future delivery, and missing headers", () => {
    const now = { nowSeconds: TIMESTAMP };
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE), '{"test": 2432232315}', now))).toBe("bad_signature");
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE, String(TIMESTAMP), "msg_other"), BODY, now))).toBe("bad_signature");
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE, String(TIMESTAMP + 1)), BODY, now))).toBe("bad_signature");
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE), BODY, { nowSeconds: TIMESTAMP + 301 }))).toBe("stale_timestamp");
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE), BODY, { nowSeconds: TIMESTAMP - 301 }))).toBe("stale_timestamp");
    expect(refusal(() => verifyWebhook(SECRET, headers(SIGNATURE, "16142653.30"), BODY, now))).toBe("bad_timestamp");
    expect(refusal(() => verifyWebhook(SECRET, { "webhook-id": ID, "webhook-timestamp": String(TIMESTAMP) }, BODY, now))).toBe("missing_headers");
    expect(refusal(() => verifyWebhook(SECRET, headers("v2,abc"), BODY, now))).toBe("bad_signature");
  });

  it("reads a fetch Headers object as well as Node's plain headers", () => {
    expect(verifyWebhook(SECRET, new Headers(headers(SIGNATURE)), BODY, { nowSeconds: TIMESTAMP }).id).toBe(ID);
  });
});
