import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    ignores: ['src/main.ts', 'src/index.ts', 'src/github/**'],
    rules: {
      // The engine knows nothing about GitHub: only the action adapter may import @actions/*.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@actions/*'],
              message: 'The engine must not import @actions/*; only src/main.ts and src/github/ may.',
            },
          ],
        },
      ],
    },
  },
);
