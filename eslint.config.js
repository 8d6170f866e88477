import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', '.data/', 'test-artifacts/', 'dist/', 'dist', '.dist-*/', '.dependency-cruiser.cjs', 'src/adapters/rest/graphql-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'src/pages/**/*.ts'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
