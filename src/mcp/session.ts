import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import type { Caller, OpContext } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import { type Grant, GrantSpecSchema } from "../ops/grant.ts";
import { hasScope } from "../ops/invoke.ts";
import { compileGrant } from "../vault/grant.ts";
import { AI_RESOURCE_TEMPLATES } from "./ai-resources.ts";
import { visibleTools } from "./catalogue.ts";
import { complete } from "./completions.ts";
import { protocolError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import { CAPABILITIES, instructionsFor, SERVER_INFO } from "./identity.ts";
import { SessionLog } from "./logging.ts";
import { getPrompt, listPrompts } from "./prompts.ts";
import { listResources, RESOURCE_TEMPLATES, readResource } from "./resources.ts";
import { intersectScopes, parseScopeList } from "./scopes.ts";
import { SubscriptionSet } from "./subscription-set.ts";
import { callTool } from "./tool-call.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface SessionOptions {
  /** The session's scopes: stdio's from its flags, HTTP's from the token that initialized it. */
  scopes: ReadonlySet<Scope>;
  /** The folder grant of the token that opened it (docs/permissions.md): its instructions and notifications keep to it. */
  grant?: Grant | null;
  /** stdio served as a token (`indx mcp --token`): its id, for the audit log. */
  tokenId?: string;
}

export interface McpSession {
  server: Server;
  subscriptions: SubscriptionSet;
  close(): Promise<void>;
}

/**
 * One MCP session: a low-level SDK Server whose handlers translate JSON-RPC into operations
 * (through invoke) and back. Over HTTP each request also carries its own token's scopes
 * (extra.authInfo); a request may do only what both the session and that token allow.
 */
export async function createSession(hub: McpHub, opts: SessionOptions): Promise<McpSession> {
  const instructions = await instructionsOf(hub, opts.scopes, opts.grant ?? null);
  const server = new Server({ ...SERVER_INFO }, { capabilities: CAPABILITIES, instructions });
  const subscriptions = new SubscriptionSet(hub, opts.grant ?? null, {
    updated: (uri) => void server.sendResourceUpdated({ uri }).catch(() => {}),
    listChanged: () => void server.sendResourceListChanged().catch(() => {}),
  });
  const log = new SessionLog(server);

  const scopesOf = (extra: Extra): Set<Scope> => (extra.authInfo ? intersectScopes(opts.scopes, parseScopeList(extra.authInfo.scopes)) : new Set(opts.scopes));
  const callerOf = (extra: Extra): Caller => {
    const tokenId = extra.authInfo?.extra?.token_id ?? opts.tokenId;
    return { surface: "mcp", ...(typeof tokenId === "string" ? { token_id: tokenId } : {}) };
  };
  /** Over HTTP each request carries its own token's grant (src/mcp/http.ts); stdio's is the session's. */
  const grantOf = (extra: Extra): Grant | null => {
    const spec = extra.authInfo?.extra?.grant;
    return extra.authInfo ? compileGrant(Value.Check(GrantSpecSchema, spec) ? spec : null) : (opts.grant ?? null);
  };
  const contextOf = (extra: Extra) => hub.ctx.forCall({ scopes: scopesOf(extra), caller: callerOf(extra), grant: grantOf(extra) });
  const needRead = (scopes: ReadonlySet<Scope>) => {
    if (!hasScope(scopes, "vault:read")) throw new IndxError("forbidden", "Resources need the vault:read scope", { needed: "vault:read" });
  };
  /** Requests other than tools/call fail as JSON-RPC errors carrying {code, message, details}. */
  const guarded = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw protocolError(err);
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, (_req, extra) => ({ tools: visibleTools(scopesOf(extra), hub.ctx) }));

  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const token = req.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (done: number, total?: number, message?: string) =>
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: done, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) },
            });
    return guarded(() =>
      callTool(hub, req.params.name, req.params.arguments, {
        app: hub.ctx,
        scopes: scopesOf(extra),
        caller: callerOf(extra),
        grant: grantOf(extra),
        progress,
        // Aborted by notifications/cancelled for this request.
        signal: extra.signal,
        log: log.forRequest(extra.sendNotification),
      }),
    );
  });

  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    log.setLevel(req.params.level);
    return {};
  });

  server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
    guarded(async () => {
      needRead(scopesOf(extra));
      await hub.ready;
      return complete(contextOf(extra), req.params);
    }),
  );

  server.setRequestHandler(ListResourcesRequestSchema, (req, extra) =>
    guarded(async () => {
      await hub.ready;
      return listResources(hub, contextOf(extra), req.params?.cursor);
    }),
  );

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: hub.ctx.ai.offers("chat") ? [...RESOURCE_TEMPLATES, ...AI_RESOURCE_TEMPLATES] : RESOURCE_TEMPLATES,
  }));

  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
    guarded(async () => {
      await hub.ready;
      hub.syncWithLog();
      return readResource(hub, contextOf(extra), req.params.uri);
    }),
  );

  server.setRequestHandler(SubscribeRequestSchema, (req, extra) =>
    guarded(async () => {
      needRead(scopesOf(extra));
      await subscriptions.add(req.params.uri, grantOf(extra));
      return {};
    }),
  );

  server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    subscriptions.remove(req.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts() }));

  server.setRequestHandler(GetPromptRequestSchema, (req, extra) =>
    guarded(() => getPrompt(req.params.name, req.params.arguments, scopesOf(extra), hub.ctx.vault, grantOf(extra))),
  );

  const detach = hub.attach({
    indexChanged(all, allListed) {
      // A change to a file the session's grant hides is no change to it (docs/permissions.md).
      const grant = opts.grant;
      const changed = grant ? all.filter((p) => grant.canRead(p)) : all;
      if (changed.length === 0) return;
      const listChanged = (grant ? allListed.filter((p) => grant.canRead(p)) : allListed).length > 0;
      log.send("info", { event: "index_updated", changed: changed.length, paths: changed.slice(0, 20), list_changed: listChanged });
      subscriptions.indexChanged(changed, allListed);
    },
  });
  const release = () => {
    detach();
    subscriptions.close();
  };
  server.onclose = release;

  return {
    server,
    subscriptions,
    async close() {
      release();
      await server.close();
    },
  };
}

/** The instructions for a caller with these scopes: sent at initialize (2025) and by server/discover (2026). */
export async function instructionsOf(hub: McpHub, scopes: ReadonlySet<Scope>, grant: Grant | null): Promise<string> {
  return instructionsFor({
    scopes,
    noteCount: await noteCount(hub.ctx.forCall({ scopes, grant })),
    tools: visibleTools(scopes, hub.ctx),
    allowed: visibleTools(scopes, hub.ctx, { profile: false }).map((t) => t.name),
  });
}

/**
 * Notes in the index, for the instructions; null while there is no usable index (stdio builds it
 * after the handshake). Read from the full-text index's own row count, one record at any size, never
 * a listing or a count(*) of the wide notes table: a session starts in the same time at any vault
 * size (docs/mcp.md, Identity).
 */
async function noteCount(ctx: OpContext): Promise<number | null> {
  try {
    const { index } = ctx;
    return index.fts.noteCount() ?? index.notes.count();
  } catch {
    return null;
  }
}
