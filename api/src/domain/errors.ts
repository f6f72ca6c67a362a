/** The spec's error codes (Errors section); clients match on them, so they never change within v1. */
export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "locked"
  | "pull_campaign"
  | "entries_campaign"
  | "campaign_ended"
  | "not_entrants_campaign"
  | "no_open_drawing"
  | "not_taking_entries"
  | "too_many_entrants"
  | "rejected"
  | "invalid_transition"
  | "proof_mismatch"
  // Beyond the spec (Idempotency-Key, http/idempotency.ts): the key was used with another request, or its first
  // request is still running.
  | "idempotency_key_reused"
  | "idempotency_in_progress";

export type ErrorStatus = 400 | 401 | 403 | 404 | 409;

/** A refusal the client can act on: answered as `{ error: code, detail }` with `status`. */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
    readonly status: ErrorStatus,
    readonly code: ErrorCode,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export class BadRequestError extends ServiceError {
  override name = "BadRequestError";
  constructor(detail: string) {
    super(400, "bad_request", detail);
  }
}

export class UnauthorizedError extends ServiceError {
  override name = "UnauthorizedError";
  constructor(detail: string) {
    super(401, "unauthorized", detail);
  }
}

/**
 * 403 forbidden: a team member who is not an owner tried an owner's action (spec, Authentication 2). Not a partner-API
 * answer (no partner endpoint manages the team); the CLI prints it, the portal will show it.
 */
export class ForbiddenError extends ServiceError {
  override name = "ForbiddenError";
  constructor(detail: string) {
    super(403, "forbidden", detail);
  }
}

/** Also for another account's resources: identical to a missing one (spec, Authentication 7). */
export class NotFoundError extends ServiceError {
  override name = "NotFoundError";
  constructor(detail: string) {
    super(404, "not_found", detail);
  }
}

export class ConflictError extends ServiceError {
  override name = "ConflictError";
  constructor(code: Exclude<ErrorCode, "bad_request" | "unauthorized" | "forbidden" | "not_found">, detail: string) {
    super(409, code, detail);
  }
}

/**
 * 400 rejected: a guarantee pick the request itself gets wrong (the winner did not win in the period, or won
 * several times and no drawingId says which). A pick refused by the guarantee's state is `ConflictError("rejected")`.
 */
export class RejectedError extends ServiceError {
  override name = "RejectedError";
  constructor(detail: string) {
    super(400, "rejected", detail);
  }
}
