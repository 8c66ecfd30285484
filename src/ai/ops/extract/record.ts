import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { type Citation, type Dropped, verifyCitations } from "../../citations.ts";
import { renderPassages } from "../../passages.ts";
import type { ModelSession } from "../../session.ts";
import type { NoteSource } from "../per-note.ts";
import type { CallerSchema } from "./caller-schema.ts";
import { EXTRACT_SYSTEM, ExtractReplyAccepted, extractReply } from "./prompt.ts";
import type { SchemaProblem } from "./schema-subset.ts";

/** One note's extracted data, valid against the caller's schema and backed by verified citations. */
export interface ExtractRecord {
  path: string;
  etag: string;
  data: unknown;
  confidence: number;
  citations: Citation[];
}

export interface NoteExtraction {
  record: ExtractRecord | null;
  warnings: Warning[];
  /** The citations that failed verification. */
  dropped: Dropped[];
  /** The data was valid but no citation of it survived (under cite): dropped as ungrounded_dropped. */
  ungrounded: boolean;
}

/** Items of an array reported as dropped in one warning, at most. */
const MAX_ITEMS_SHOWN = 5;
/** A warning's message stays readable however many errors the validator found. */
const MAX_MESSAGE_CHARS = 1_000;

/**
 * One note's record (docs/decisions.md, "ai_extract"): one model request, its `data` re-validated
 * against the caller's schema — for an array schema item by item, so one bad item costs that item
 * and not the note's other items — then its citations verified.
 */
export async function extractRecord(
  ctx: OpContext,
  session: ModelSession,
  source: NoteSource,
  c: { schema: CallerSchema; instructions: string; cite: boolean },
): Promise<NoteExtraction> {
  const reply = await session.jsonAccepting(
    {
      system: EXTRACT_SYSTEM,
      messages: [{ role: "user", content: `${renderPassages(source.passages)}\n\n${c.instructions}` }],
      schema: extractReply(c.schema),
    },
    ExtractReplyAccepted,
  );
  const { path } = source;
  const warnings: Warning[] = [];
  const checked = checkData(c.schema, reply.data);
  if (checked.droppedItems.length) warnings.push(extractInvalid(path, itemsMessage(path, checked.droppedItems)));
  if (checked.errors.length) {
    warnings.push(extractInvalid(path, `${path}: the extracted record fails the schema and was dropped: ${problemsText(checked.errors)}.`));
    return { record: null, warnings, dropped: [], ungrounded: false };
  }
  const verified = await verifyCitations(ctx, new Map(source.passages.map((p) => [p.id, p])), reply.citations);
  warnings.push(...verified.warnings);
  if (c.cite && verified.citations.length === 0) {
    warnings.push({ code: "ungrounded_dropped", path, message: `${path}: the extracted record had no verified citation and was dropped.` });
    return { record: null, warnings, dropped: verified.dropped, ungrounded: true };
  }
  const confidence = Math.min(1, Math.max(0, reply.confidence));
  return {
    record: { path, etag: source.etag, data: checked.data, confidence, citations: verified.citations },
    warnings,
    dropped: verified.dropped,
    ungrounded: false,
  };
}

interface CheckedData {
  data: unknown;
  /** What makes the record invalid as a whole; empty when it is kept. */
  errors: SchemaProblem[];
  droppedItems: { index: number; errors: SchemaProblem[] }[];
}

/**
 * The data as kept: for an array schema the items that fail the item schema are dropped first,
 * then what is left must pass the whole schema (minItems, maxItems…); an array all of whose items
 * failed is no record, since nothing in it could be trusted.
 */
function checkData(schema: CallerSchema, data: unknown): CheckedData {
  if (!schema.checksItems || !Array.isArray(data)) return { data, errors: schema.errors(data), droppedItems: [] };
  const kept: unknown[] = [];
  const droppedItems: CheckedData["droppedItems"] = [];
  for (const [index, item] of data.entries()) {
    const errors = schema.itemErrors(item);
    if (errors.length) droppedItems.push({ index, errors });
    else kept.push(item);
  }
  if (droppedItems.length && kept.length === 0) return { data: kept, errors: [{ path: "/", message: "every item failed the schema" }], droppedItems };
  return { data: kept, errors: schema.errors(kept), droppedItems };
}

function extractInvalid(path: string, message: string): Warning {
  return { code: "extract_invalid", path, message: message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : message };
}

function itemsMessage(path: string, items: CheckedData["droppedItems"]): string {
  const shown = items.slice(0, MAX_ITEMS_SHOWN).map((i) => `item ${i.index}: ${problemsText(i.errors)}`);
  const more = items.length > MAX_ITEMS_SHOWN ? `; and ${items.length - MAX_ITEMS_SHOWN} more` : "";
  return `${path}: ${items.length} extracted item${items.length === 1 ? "" : "s"} failed the schema and ${items.length === 1 ? "was" : "were"} dropped (${shown.join("; ")}${more}).`;
}

const problemsText = (problems: readonly SchemaProblem[]) => problems.map((p) => `${p.path} ${p.message}`).join(", ");
