import { Type } from "@sinclair/typebox";
import { setConfigValue } from "../config/set.ts";
import { defineOp } from "../ops/define.ts";
import { INPUT_LIMITS, Warning } from "../ops/schemas.ts";

const Text = Type.String({ maxLength: INPUT_LIMITS.textLineChars });

export const vaultConfigSet = defineOp({
  name: "vault_config_set",
  errors: ["not_found", "patch_target_not_found", "encoding_unsupported"],
  title: "Write a configuration key",
  description: "Set one config key (null removes it); applies at next start.",
  scope: "vault:admin",
  destructive: true,
  safe: false,
  input: Type.Object(
    {
      key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Dotted key, e.g. search.default_limit." }),
      value: Type.Union([Text, Type.Number(), Type.Boolean(), Type.Array(Text, { maxItems: 1_000 }), Type.Null()], {
        description: "In the key's type; null removes it.",
      }),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    key: Type.String(),
    value: Type.Unknown({ description: "As stored, in the key's type; null when removed." }),
    previous: Type.Unknown({ description: "What the config file held before; null when it did not set the key." }),
    warnings: Type.Array(Warning),
  }),
  run(ctx, input) {
    return setConfigValue(ctx.vault.config, input.key, input.value, "remote");
  },
  summary: (o) => `${o.value === null ? `removed ${o.key}` : `set ${o.key} = ${JSON.stringify(o.value)}`} in the config file; it applies when indx next starts`,
});
