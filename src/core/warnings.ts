/**
 * Every warning an operation can return, with what it means (docs/contracts.md, "Warnings").
 * A warning is never an error: the operation did its work, and this says what the caller should
 * know about the result. Like ERROR_CODES, the table is the only place a code is born; the
 * Warning schema enumerates it, so a result with an unknown code fails its output schema.
 */
export const WARNING_CODES = {
  // Indexing: the note is listed, and this says why it is not fully searchable.
  frontmatter_invalid: "The note's frontmatter is not valid YAML; it is indexed without properties.",
  note_too_large: "Larger than index.max_note_bytes: listed but not searchable.",
  binary_content: "Binary content in a Markdown file: listed but not searchable.",
  unreadable: "The file could not be read and was skipped.",
  vault_empty: "The vault folder has no files to index: it may be the wrong folder.",
  symlink_escape: "A symlink leads outside the vault and was skipped.",
  document_not_extracted:
    "A PDF or DOCX is listed as an attachment but its text is not searchable; the message says why (encrypted, image-only: indx does no OCR, malformed, over a limit).",
  document_truncated: "Only part of a PDF's or DOCX's text is searchable (a page or size limit); the message says how much.",
  // Search.
  query_empty: "The query has no searchable words.",
  embeddings_unavailable: "Hybrid or semantic retrieval fell back to lexical.",
  embeddings_incompatible: "The stored vectors are from another model; results are lexical until --reembed.",
  embeddings_incomplete: "Some chunks are not embedded yet; vector results may miss them.",
  embeddings_failed: "The embedding pass failed; the lexical index is up to date.",
  embeddings_pending: "Chunks still wait for their vectors.",
  rerank_unavailable: "Reranking needs a chat model; results are in fused order.",
  rerank_failed: "The chat model failed to rerank; results are in fused order.",
  // Writes.
  index_not_updated: "The file was written but the index was not updated; the watcher or the next index run catches up.",
  template_missing: "The template the vault's settings name was not found; the note was created empty.",
  // Configuration.
  config_overridden: "The environment sets this key and wins over the config file: the value written applies once that variable is unset.",
  // The AI runtime.
  chat_unavailable: "Chat-dependent fields were omitted: no chat model is available.",
  ai_cache_hit: "Served from the AI cache; usage reflects zero cost.",
  ai_quota_reached: "The daily cost cap was reached part way: the results already paid for are returned, the rest were not asked for.",
  ai_price_unknown: "A model has no known price: with ai.daily_cost_usd set it is refused until ai.prices names it.",
  citation_drift: "A cited note changed since the model read it; the citation was dropped.",
  citation_invalid: "A cited passage or quote does not resolve; the citation was dropped.",
  ungrounded_dropped: "A claim without a verified citation was dropped.",
  truncated: "The output hit the token limit.",
  stream_unsupported: "Streaming was asked for but the provider does not stream.",
  globs_excluded: "Some notes in scope were excluded by the AI allow/deny globs.",
  unsupported_question: "The vault does not support an answer; a low-confidence reply was returned.",
  tag_invalid: "A proposed tag is not a valid tag and was dropped.",
  metadata_missing: "A required field could not be extracted.",
  metadata_invalid: "An extracted value failed its field's type and was dropped.",
  extract_invalid: "Extracted data failed the caller's schema: the record (or, for an array schema, the item) was dropped.",
  tag_below_threshold: "A proposed tag scored under min_confidence and was dropped.",
  apply_skipped_no_change: "Applying would not change the note, so it was not written.",
  etag_mismatch: "The note changed since the given if_match, or on disk while the apply was writing it; it was skipped (if_match_mode skip).",
  apply_failed: "A note's edit could not be planned or written; the other notes were.",

  relation_invalid: "A relationship the model proposed named a label or note it was not offered, and was dropped.",
} as const;

export type WarningCode = keyof typeof WARNING_CODES;
