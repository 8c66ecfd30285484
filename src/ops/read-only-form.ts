import { type TObject, Type } from "@sinclair/typebox";
import type { AnyOperation, Scope } from "./define.ts";
import { hasScope } from "./invoke.ts";

/** How an operation is shown to a caller: in full, or without its write fields. */
export interface OperationForm {
  input: TObject;
  description: string;
  readOnly: boolean;
}

/**
 * The operation as a caller with these scopes may use it: one that writes for some inputs only
 * (an AI apply) is shown to a caller without vault:write without the fields that write, and says
 * so, so an agent is never offered what it would be refused (docs/decisions.md, "AI apply").
 */
export function formFor(op: AnyOperation, scopes: ReadonlySet<Scope>): OperationForm {
  if (!op.writes || hasScope(scopes, "vault:write")) return { input: op.input, description: op.description, readOnly: op.safe };
  return {
    input: Type.Omit(op.input, [...op.writes.fields]),
    description: `${op.description} Suggest-only for this caller: writing needs vault:write.`,
    readOnly: true,
  };
}
