import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const notTheService = {
  regex: "^(@/|(\\.\\./)+)service(/|$)",
  message: "The dashboard reaches the service only over HTTP, as it would the hosted original; import lib/contract instead.",
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [".next/**", "node_modules/**", "data/**", "tmp/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "docs/openapi.json"],
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The boundary between the two systems (ARCHITECTURE.md): the service reaches only the wire
  // contract; the dashboard never reaches the service's code (tests and their helpers aside).
  {
    files: ["service/**/*.ts"],
    ignores: ["service/**/*.test.ts", "service/testing/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              // lib/ (but lib/contract), app/ or components/, by alias or by relative path.
              regex: "^(@/|(\\.\\./)+)(lib/(?!contract(/|$))|app/|components/)",
              message: "The service imports only lib/contract (the wire contract); it knows nothing of the dashboard.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", "**/*.test.tsx"],
    rules: { "no-restricted-imports": ["error", { patterns: [notTheService] }] },
  },
  // The store sits beneath sign-in: lib/core/auth reads users and throttles from it, never the reverse.
  {
    files: ["lib/core/store/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            notTheService,
            {
              regex: "^(@/|(\\.\\./)+)(lib/core/)?auth(/|$)",
              message: "The dashboard store does not import lib/core/auth (auth builds on the store).",
            },
          ],
        },
      ],
    },
  },
];
export default config;
