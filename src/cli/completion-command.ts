import { IndxError } from "../core/errors.ts";
import { command } from "./command.ts";
import { print } from "./io.ts";

/**
 * Shell scripts that ask `indx __complete` for candidates, so completions follow the command tree,
 * the operations' enums, the vault's note paths and its tags as they are now.
 */
const SCRIPTS = {
  bash: `# indx completion for bash: eval "$(indx completion bash)" in ~/.bashrc
_indx() {
  local words=("\${COMP_WORDS[@]:1:COMP_CWORD}")
  mapfile -t COMPREPLY < <(indx __complete "\${words[@]}" 2>/dev/null)
  # A file or folder on disk: nothing from indx, and bash's own file (or folder) completion.
  case "\${COMPREPLY[0]-}" in
    __indx_files__) COMPREPLY=(); compopt -o default 2>/dev/null; return 0 ;;
    __indx_dirs__) COMPREPLY=(); compopt -o dirnames 2>/dev/null; return 0 ;;
  esac
  # Paths with spaces are inserted quoted.
  compopt -o filenames 2>/dev/null
  return 0
}
complete -F _indx indx
`,
  zsh: `#compdef indx
# indx completion for zsh: indx completion zsh > "\${fpath[1]}/_indx" (or eval "$(indx completion zsh)" after compinit)
_indx() {
  local -a candidates
  candidates=("\${(@f)$(indx __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  case "\${candidates[1]}" in
    __indx_files__) _files ;;
    __indx_dirs__) _files -/ ;;
    *) compadd -a candidates ;;
  esac
}
if [[ "\${funcstack[1]}" = "_indx" ]]; then _indx "$@"; else compdef _indx indx; fi
`,
  fish: `# indx completion for fish: indx completion fish > ~/.config/fish/completions/indx.fish
function __indx_complete
    set -l tokens (commandline -opc) (commandline -ct)
    set -l out (indx __complete $tokens[2..-1] 2>/dev/null)
    switch "$out[1]"
        case __indx_files__
            __fish_complete_path (commandline -ct)
        case __indx_dirs__
            __fish_complete_directories (commandline -ct)
        case '*'
            for candidate in $out
                echo $candidate
            end
    end
end
complete -c indx -f -a '(__indx_complete)'
`,
  powershell: `# indx completion for PowerShell: indx completion powershell | Out-String | Invoke-Expression (add it to $PROFILE)
Register-ArgumentCompleter -Native -CommandName indx, indx.exe -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
  if ($wordToComplete -eq '') { $words += '""' }
  $out = @(indx __complete @words 2>$null)
  # A file or folder on disk: no answer, so PowerShell completes paths itself.
  if ($out.Count -gt 0 -and $out[0] -like '__indx_*__') { return }
  $out | ForEach-Object {
    $text = if ($_ -match '\\s') { "'$_'" } else { $_ }
    [System.Management.Automation.CompletionResult]::new($text, $_, 'ParameterValue', $_)
  }
}
`,
} as const;

type Shell = keyof typeof SCRIPTS;

export const completionCommand = command({
  description: "Print a shell's completion script (bash, zsh, fish, powershell).",
  long: "The script completes commands, flags, allowed values, note paths and tags (from the index, as it is when you press Tab), and config keys; files and folders on disk (--vault, --file, --body-file, …) are left to the shell's own completion.",
  examples: [
    "indx completion bash > indx.bash   # then: source indx.bash",
    "mkdir -p ~/.local/share/bash-completion/completions && indx completion bash > ~/.local/share/bash-completion/completions/indx",
    'eval "$(indx completion bash)"          # or this, in ~/.bashrc',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion the user types, not a template
    'indx completion zsh > "${fpath[1]}/_indx"',
    "mkdir -p ~/.config/fish/completions && indx completion fish > ~/.config/fish/completions/indx.fish",
    "indx completion powershell | Out-String | Invoke-Expression",
  ],
  args: { shell: { type: "positional", required: true, description: "bash, zsh, fish or powershell." } },
  run(flags) {
    const shell = flags.shell.toLowerCase();
    if (!(shell in SCRIPTS)) throw new IndxError("validation_failed", `<shell> must be bash, zsh, fish or powershell (got ${JSON.stringify(flags.shell)}).`);
    print(SCRIPTS[shell as Shell]);
  },
});
