import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// src/action/ is the action's adapter (its lifecycle, reporting, the trusted stage's wiring):
// only src/main.ts above it may import it.
const actionAdapter = {
  group: ['**/action/*'],
  message: 'src/action/ is the action adapter: only src/main.ts may import it.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'build/',
      'examples/recorded-judge/',
      '.rubric-eval-cache/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // promptfoo loads `file://` assertion scripts with require(): they are CommonJS, as users write them.
    files: ['examples/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Type declarations of the JS test servers describe JSON request bodies of any shape.
    files: ['__fixtures__/**/*.d.mts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts', 'src/index.ts', 'src/action/**', 'src/github/**'],
    rules: {
      // The engine knows nothing about GitHub: only the action adapter may import @actions/*.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@actions/*'],
              message:
                'The engine must not import @actions/*; only src/main.ts, src/action/ and src/github/ may.',
            },
            actionAdapter,
          ],
        },
      ],
    },
  },
  {
    // The action's wiring sits above GitHub's modules: nothing below it imports it.
    files: ['src/github/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [actionAdapter] }] },
  },
);
