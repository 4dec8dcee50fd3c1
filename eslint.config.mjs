// Effect's own ESLint settings (the effect repository's eslint.config.mjs on its v3 branch), dprint formatting
// included through @effect/eslint-plugin.
import * as effectEslint from "@effect/eslint-plugin"
import { fixupPluginRules } from "@eslint/compat"
import { FlatCompat } from "@eslint/eslintrc"
import js from "@eslint/js"
import tsParser from "@typescript-eslint/parser"
import _import from "eslint-plugin-import"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import globals from "globals"
import path from "node:path"
import { fileURLToPath } from "node:url"

const __dirname = path.dirname(fileURLToPath(import.meta.url))
// the house's own packages: one imports another's modules, as Effect's packages do (an index loads every module)
const zettPackages = [
  "@zett/common",
  "@zett/agent",
  "@zett/mcp",
  "@zett/mcp-node",
  "@zett/mcp-auth",
  "@zett/mcp-config",
  "@zett/ai"
]
// the folders of effect 4.1 whose index re-exports every module in them (the `exports` of its package.json)
const effect4Barrels = [
  "ai",
  "chat",
  "cli",
  "cluster",
  "crypto",
  "devtools",
  "encoding",
  "eventlog",
  "graphql",
  "http",
  "http-api",
  "jose",
  "net",
  "observability",
  "persistence",
  "process",
  "protobuf",
  "reactivity",
  "rpc",
  "schema",
  "socket",
  "sql",
  "testing",
  "workers",
  "workflow"
]
const compat = new FlatCompat({
  baseDirectory: __dirname,
  recommendedConfig: js.configs.recommended,
  allConfig: js.configs.all
})

export default [
  // what runs write (results, reports, scratch); the Effect 4 line (effect4/, a workspace of its own) is linted with
  // the same settings
  {
    ignores: [
      "**/dist",
      "**/build",
      "**/docs",
      "**/node_modules",
      "**/*.md",
      "**/.tsbuildinfo",
      "bench-results/**",
      // the lanes' bundle (npm run bench), git-ignored
      "scripts/bench/.build/**",
      "reports/**",
      ".stryker-tmp/**",
      "conformance-results/**",
      "conformance-results-*/**"
    ]
  },
  ...compat.extends(
    "eslint:recommended",
    "plugin:@typescript-eslint/eslint-recommended",
    "plugin:@typescript-eslint/recommended"
  ),
  ...effectEslint.configs.dprint,
  {
    plugins: { import: fixupPluginRules(_import), "sort-destructure-keys": sortDestructureKeys },
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: "module" },
    settings: {
      "import/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import/resolver": { typescript: { alwaysTryTypes: true } }
    },
    rules: {
      "no-fallthrough": "off",
      // the terminal's control sequences are what the scrubbers and the tests' readers look for
      "no-control-regex": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "sort-imports": "off",
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
        message: "Do not use spread arguments in Array.push"
      }],
      "no-unused-vars": "off",
      "require-yield": "off",
      "prefer-rest-params": "off",
      // a variable a finalizer reads before the acquisition that sets it cannot be const
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "prefer-spread": "off",
      "import/first": "error",
      "import/newline-after-import": "error",
      "import/no-duplicates": "error",
      "import/no-unresolved": "off",
      "import/order": "off",
      "sort-destructure-keys/sort-destructure-keys": "error",
      "@typescript-eslint/array-type": ["warn", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/member-delimiter-style": 0,
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/ban-types": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-wrapper-object-types": "off",
      "@typescript-eslint/consistent-type-imports": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/camelcase": "off",
      "@typescript-eslint/explicit-function-return-type": "off",
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "@typescript-eslint/interface-name-prefix": "off",
      "@typescript-eslint/no-array-constructor": "off",
      "@typescript-eslint/no-use-before-define": "off",
      "@typescript-eslint/no-namespace": "off",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  // TypeScript checks names itself; the plain JavaScript scripts and servers run on Node
  { files: ["**/*.ts"], rules: { "no-undef": "off" } },
  { files: ["**/*.mjs", "**/*.js", "**/*.cjs"], languageOptions: { globals: globals.node } },
  { files: ["packages/*/src/**/*", "effect4/packages/*/src/**/*"], rules: { "no-console": "error" } },
  {
    files: ["packages/*/src/**/*"],
    rules: {
      "@effect/no-import-from-barrel-package": ["error", {
        packageNames: [
          "effect",
          "@effect/platform",
          "@effect/platform-node",
          "@effect/ai",
          "@effect/experimental",
          "@effect/cli",
          ...zettPackages
        ]
      }]
    }
  },
  // Effect 4 keeps its unstable modules in folders, each with an index that loads all of them (effect/encoding
  // alone brings CSV, TOML, XML, YAML, Tar and Zip)
  {
    files: ["effect4/packages/*/src/**/*"],
    rules: {
      "@effect/no-import-from-barrel-package": ["error", {
        packageNames: ["effect", ...effect4Barrels.map((folder) => `effect/${folder}`), ...zettPackages]
      }]
    }
  }
]
