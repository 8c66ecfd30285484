import type { Scope } from "../ops/define.ts";

export interface ConsentView {
  clientName: string;
  /** The named vault asked for (docs/decisions.md, "OAuth for named vaults"); null: the server's default vault. */
  vault?: string | null;
  /** The client_id when it is a URL (a metadata document), else null: shown so the owner sees who vouches for the name. */
  clientUrl: string | null;
  redirectHost: string;
  requested: Scope[];
  requestId: string;
  csrf: string;
  /** Why the last attempt was refused (a wrong approval code), shown above the form. */
  error?: string;
  /** The folder fields as the owner last typed them (empty: the whole vault). */
  folders?: { read: string; write: string };
  /** Why those folders cannot be granted, shown beside the fields. */
  foldersProblem?: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Each access level the owner may pick, from the least; a level is offered only up to what the client asked. */
const LEVELS: { value: string; needs: Scope; label: string; hint: string }[] = [
  { value: "read", needs: "vault:read", label: "Read only", hint: "Search and read notes, links, tags, Canvas and Bases." },
  { value: "write", needs: "vault:write", label: "Read and write", hint: "Also create, edit, move and delete notes (every write is journaled)." },
  { value: "admin", needs: "vault:admin", label: "Full control", hint: "Also change indx settings and rebuild the index." },
];

const STYLE = `
:root{color-scheme:light dark;--fg:#111;--bg:#fff;--muted:#444;--line:#767676;--accent:#0b57d0;--accent-fg:#fff;--err:#a50e0e;--err-bg:#fce8e6}
@media (prefers-color-scheme:dark){:root{--fg:#f1f1f1;--bg:#161616;--muted:#c4c4c4;--line:#8a8a8a;--accent:#8ab4f8;--accent-fg:#0b1a33;--err:#f6aea9;--err-bg:#3b1512}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}
p{margin:.5rem 0}
.who{word-break:break-word}
.muted{color:var(--muted)}
code{font:.95em ui-monospace,SFMono-Regular,Menlo,monospace}
fieldset{border:1px solid var(--line);border-radius:.5rem;margin:1.25rem 0;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.6rem;align-items:flex-start;padding:.4rem 0}
.choice input{margin-top:.3rem;width:1.15rem;height:1.15rem;flex:none}
.choice span{display:block}
label.field{display:block;font-weight:600;margin:1.25rem 0 .25rem}
fieldset label.field{margin-top:.75rem}
textarea{width:100%;font:.95em ui-monospace,SFMono-Regular,Menlo,monospace;padding:.5rem .7rem;border:1px solid var(--line);border-radius:.4rem;background:var(--bg);color:var(--fg);resize:vertical}
input[type=password]{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--line);border-radius:.4rem;background:var(--bg);color:var(--fg)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.55rem 1.4rem;border-radius:.4rem;border:2px solid var(--accent);cursor:pointer}
button.approve{background:var(--accent);color:var(--accent-fg)}
button.deny{background:transparent;color:var(--fg);border-color:var(--line)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.error{border-left:4px solid var(--err);background:var(--err-bg);color:var(--fg);padding:.6rem .8rem;border-radius:.25rem}
@media (max-width:420px){.actions button{flex:1 1 100%}}
`;

/**
 * The consent page: plain HTML, one form, no script (docs/decisions.md, OAuth: consent). Its
 * order is the tab order: the access level, the folders to read and to write, the owner's proof,
 * Approve, Deny.
 */
export function renderConsent(v: ConsentView): string {
  const offered = LEVELS.filter((l) => v.requested.includes(l.needs));
  const levels = offered.length > 0 ? offered : LEVELS.slice(0, 1);
  // Pre-selected: the most the client asked for, short of full control, which the owner picks on purpose.
  const top = levels.filter((l) => l.value !== "admin").at(-1)?.value ?? levels[0]?.value;
  const choices = levels
    .map(
      (l) => `<label class="choice"><input type="radio" name="access" value="${l.value}"${l.value === top ? " checked" : ""}>
<span><strong>${l.label}</strong> <span class="muted">${escapeHtml(l.hint)}</span></span></label>`,
    )
    .join("\n");
  // A registered client's name is its own claim; a metadata document's URL says who stands behind it.
  const vouch = v.clientUrl
    ? `<p class="muted who">Identified by <code>${escapeHtml(v.clientUrl)}</code></p>`
    : `<p class="muted">The application chose this name itself.</p>`;
  const asked = v.requested.map((s) => `<code>${s}</code>`).join(" ");
  const error = v.error ? `<p class="error" role="alert" id="proof-error">${escapeHtml(v.error)}</p>` : "";
  const described = v.error ? "proof-hint proof-error" : "proof-hint";
  // The owner must see which of their vaults is asked for: a server may hold a work and a personal one.
  const which = v.vault ? `your vault <strong>${escapeHtml(v.vault)}</strong>` : "your vault";
  const whichTitle = v.vault ? `your vault ${escapeHtml(v.vault)}` : "your vault";
  const approveHint = v.vault ? ` <code>--vault ${escapeHtml(v.vault)}</code>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${escapeHtml(v.clientName)} to use ${whichTitle}? · indx</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 class="who">Allow <strong>${escapeHtml(v.clientName)}</strong> to use ${which}?</h1>
${vouch}
<p>It asks for ${asked}.</p>
<p class="who">After you decide, you go back to <strong>${escapeHtml(v.redirectHost)}</strong>.</p>
${error}
<form method="post" action="authorize">
<input type="hidden" name="request_id" value="${escapeHtml(v.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<fieldset>
<legend>Access to grant</legend>
${choices}
</fieldset>
${folderFields(v)}
<label class="field" for="owner_proof">Approval code or admin token</label>
<p class="muted" id="proof-hint">Run <code>indx auth approve</code>${approveHint} on the machine that serves this vault and type the code it prints (it works once, for ten minutes).</p>
<input type="password" id="owner_proof" name="owner_proof" autocomplete="one-time-code" spellcheck="false" autocapitalize="characters" aria-describedby="${described}" maxlength="200"${v.error ? ' aria-invalid="true"' : ""}>
<div class="actions">
<button type="submit" class="approve" name="decision" value="approve">Approve</button>
<button type="submit" class="deny" name="decision" value="deny">Deny</button>
</div>
</form>
</main>
</body>
</html>
`;
}

/** A page for a request indx cannot send back to the client (unknown client, a redirect URI it did not register). */
export function renderProblem(title: string, detail: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · indx</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(detail)}</p>
<p class="muted">Nothing was granted. Start again from the app that sent you here.</p>
</main>
</body>
</html>
`;
}

/** The optional folder limits (docs/permissions.md): globs one per line or comma-separated; empty, the whole vault. */
function folderFields(v: ConsentView): string {
  const problem = v.foldersProblem ? `<p class="error" role="alert" id="folders-error">${escapeHtml(v.foldersProblem)}</p>` : "";
  const described = (hint: string) =>
    `aria-describedby="folders-hint ${hint}${v.foldersProblem ? " folders-error" : ""}"${v.foldersProblem ? ' aria-invalid="true"' : ""}`;
  const area = (name: string, hint: string, value: string) =>
    `<textarea id="${name}" name="${name}" rows="2" maxlength="3000" spellcheck="false" autocapitalize="off" ${described(hint)}>${escapeHtml(value)}</textarea>`;
  // Write folders only where the client may be granted writing: on a read-only grant they could only be refused.
  const write = v.requested.includes("vault:write")
    ? `<label class="field" for="write_folders">Folders it may write</label>
<p class="muted" id="write-hint">Needs Read and write. Empty: the folders it may read. It may also read what it may write.</p>
${area("write_folders", "write-hint", v.folders?.write ?? "")}`
    : "";
  return `<fieldset>
<legend>Folders (optional)</legend>
<p class="muted" id="folders-hint">Leave empty for the whole vault. One pattern per line or comma-separated, such as <code>Projects/**</code>.</p>
${problem}
<label class="field" for="read_folders">Folders it may read</label>
<p class="muted" id="read-hint">Empty: the whole vault.</p>
${area("read_folders", "read-hint", v.folders?.read ?? "")}
${write}
</fieldset>`;
}
