import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', '.data/', 'test-artifacts/', 'dist/', 'dist', '.dist-*/', '.dependency-cruiser.cjs', 'src/adapters/documents/graphql-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Queries live in one store per area (src/domain/<area>/store.ts, and src/domain/store.ts for
    // the transaction); flows call store functions and never touch the client (issue 32, item 1).
    files: ['src/domain/**/*.ts', 'src/adapters/**/*.ts'],
    ignores: ['src/domain/**/store.ts', 'src/domain/store.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['db', 'tx'].map((name) => ({
          selector: `MemberExpression[object.name='${name}'], MemberExpression[object.type='MemberExpression'][object.property.name='${name}']`,
          message: `No query outside a store: call a function of the area's store.ts with \`${name}\` instead.`,
        })),
        { selector: "CallExpression[callee.property.name='sql']", message: "No query outside a store: call a function of the area's store.ts." },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'src/pages/**/*.ts'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
