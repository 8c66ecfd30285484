/** The error codes of RFC 6749 §5.2 and RFC 7591 §3.2.2 that indx answers with. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "slow_down";

/**
 * An OAuth protocol error: answered as `{error, error_description}` (not indx's envelope, which
 * OAuth clients do not read). `retryAfter` marks a throttled request.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

export function oauthErrorResponse(err: OAuthError): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  if (err.retryAfter) headers["retry-after"] = String(err.retryAfter);
  return new Response(JSON.stringify({ error: err.code, error_description: err.description }), { status: err.status, headers });
}
