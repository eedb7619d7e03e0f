// Lint: typescript-eslint's strict, type-aware rules, with the few adjustments below.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'src/backends/redis/lua.generated.ts',
      // The Next.js fixture app's build output (test/dashboard/frameworks/next-app).
      '**/.next/**',
      '**/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // With noUncheckedIndexedAccess every index read is `T | undefined`; a `!` after an index
      // the code has just bounds-checked is the plain way to say so.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Numbers and booleans read fine in messages; objects and nullish values stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `() => void promise` and `(x) => list.push(x)` callbacks are idiomatic.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        { ignoreArrowShorthand: true, ignoreVoidOperator: true },
      ],
    },
  },
  {
    // Tests read rows and replies of raw drivers, typed `any` by the drivers themselves, and
    // write handlers as `async` functions whatever their body.
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/require-await': 'off',
      // The public types describe the drivers structurally; tests cast them back to the driver
      // classes they created (a pg.Pool, an ioredis Redis) to reach members outside the library.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  {
    // The Next.js fixture app resolves `queuedev` through its node_modules (a link the test
    // makes to the built package); the repository's project maps it to the source instead.
    files: ['test/dashboard/frameworks/next-app/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.json' } },
  },
  {
    // The forceKillOnTimeout tests build handlers from source text, as the worker thread does.
    files: ['src/forced-timeout/*.test.ts'],
    rules: { '@typescript-eslint/no-implied-eval': 'off' },
  },
  {
    // Configuration files (this one, the Next.js fixture's), outside the TypeScript project.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
