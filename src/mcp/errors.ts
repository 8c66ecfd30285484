import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type ErrorCode as IndxCode, toIndxError } from "../core/errors.ts";

/** MCP's "resource not found" (spec, resources §error handling). */
export const RESOURCE_NOT_FOUND = -32002;

const JSON_RPC_CODE: Partial<Record<IndxCode, number>> = {
  not_found: RESOURCE_NOT_FOUND,
  validation_failed: ErrorCode.InvalidParams,
  path_invalid: ErrorCode.InvalidParams,
  payload_too_large: ErrorCode.InvalidParams,
  unauthorized: ErrorCode.InvalidRequest,
  forbidden: ErrorCode.InvalidRequest,
};

/**
 * A JSON-RPC error as the SDK sends it ({code, message, data} of whatever a handler throws).
 * Not an McpError: that one prefixes "MCP error <code>:" to the message, which the client then
 * prefixes again.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/**
 * Resources and prompts answer failures as JSON-RPC errors (tools answer isError results). The
 * error's data carries the same {code, message, details} as every other surface.
 */
export function protocolError(err: unknown): Error {
  if (err instanceof McpError || err instanceof RpcError) return err;
  const e = toIndxError(err);
  return new RpcError(JSON_RPC_CODE[e.code] ?? ErrorCode.InternalError, e.message, e.toJSON());
}
