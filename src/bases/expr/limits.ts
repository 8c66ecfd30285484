/**
 * Bounds on one Bases expression (docs/decisions.md, "Bases input bounds"). A module of its own: operation schemas quote them, and importing
 * the parser for a constant would load the lexer and its regex engine on every `indx search`
 * (docs/decisions.md, "A CLI search loads only what it runs").
 */
export const EXPRESSION_LIMITS = { chars: 10_000, depth: 64 } as const;
