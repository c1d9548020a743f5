/**
 * Stable error codes (SPEC §5). Each code has one HTTP status and one title; the `type` URI is
 * derived from the code so that clients can switch on either.
 */
export const ERROR_CODES = {
  /** The request could not be read as HTTP (request line, header characters, Content-Length, chunks). */
  bad_request: { status: 400, title: 'Malformed request' },
  invalid_token: { status: 401, title: 'Missing or invalid token' },
  insufficient_scope: { status: 403, title: 'The token lacks the required scope' },
  origin_not_allowed: { status: 403, title: 'Host or Origin not allowed' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  /** The headers or the body did not arrive within the server's deadline. */
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  /** A connection was tried before it was saved and the remote server refused it; `detail` carries its reason. */
  connection_failed: { status: 422, title: 'Connection failed' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  model_unavailable: { status: 503, title: 'Model unavailable' },
  tool_unavailable: { status: 503, title: 'Tool unavailable' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  internal: { status: 500, title: 'Internal error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const PROBLEM_TYPE_BASE = 'https://assistant.dev/problems/';

export function problemType(code: ErrorCode): string {
  return `${PROBLEM_TYPE_BASE}${code.replace(/_/g, '-')}`;
}
