// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.data/',
      'test-output/',
      'src/graphql/generated/',
      'e2e/page/gql/',
      'e2e/page/dist/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // The stand-in is a separate product: it must never reach into the service. Inside it, any
  // relative import is fine as long as it stays below src/standin (one rule per folder depth).
  ...[
    ['src/standin/*.ts', '../*'],
    ['src/standin/*/*.ts', '../../*'],
    ['src/standin/*/*/*.ts', '../../../*'],
  ].map(([files, leaving]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [leaving], message: 'src/standin imports nothing from the service.' },
          ],
        },
      ],
    },
  })),
);
