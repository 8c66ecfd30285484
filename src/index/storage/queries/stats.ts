import type { Database } from "bun:sqlite";
import type { LinkQueries } from "./links.ts";

/** How much the index holds (vault_status, /metrics). */
export interface IndexCounts {
  files: number;
  notes: number;
  attachments: number;
  canvases: number;
  bases: number;
  chunks: number;
  links: number;
  unresolvedLinks: number;
  /** Distinct tags, case-insensitive. */
  tags: number;
  tasks: number;
  /** PDFs and DOCX files whose text is searchable (docs/documents.md). */
  documents: number;
}

export class StatsQueries {
  constructor(
    private readonly db: Database,
    private readonly links: LinkQueries,
  ) {}

  counts(): IndexCounts {
    const count = (sql: string) => this.db.query<{ n: number }, []>(sql).get()?.n ?? 0;
    const kinds = new Map(
      this.db
        .query<{ kind: string; n: number }, []>("SELECT kind, count(*) AS n FROM files GROUP BY kind")
        .all()
        .map((r) => [r.kind, r.n]),
    );
    return {
      files: count("SELECT count(*) AS n FROM files"),
      notes: kinds.get("note") ?? 0,
      attachments: kinds.get("attachment") ?? 0,
      canvases: kinds.get("canvas") ?? 0,
      bases: kinds.get("base") ?? 0,
      chunks: count("SELECT count(*) AS n FROM chunks"),
      links: count("SELECT count(*) AS n FROM links"),
      unresolvedLinks: this.links.unresolvedCount(),
      tags: count("SELECT count(DISTINCT tag_lower) AS n FROM tags"),
      tasks: count("SELECT coalesce(sum(tasks), 0) AS n FROM notes"),
      documents: count("SELECT count(*) AS n FROM documents d JOIN notes n ON n.file_id = d.file_id"),
    };
  }
}
