// Type-aware linting: the rules that matter here (floating promises, misused
// promises, unsafe any) need type information, which only typescript-eslint has.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.bench-build/',
      'docs/api/',
      'out/',
      'test/examples/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            'src/web/build.js',
            'src/cli/build.js',
            '.dependency-cruiser.cjs',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-unnecessary-condition': [
        'error',
        { allowConstantLoopConditions: true },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // An error class made by taggedError extends its family's base (RunError, …) at run time
      // — instanceof holds — but its declared base is an intersection this rule does not look into.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > Property[kind=/^[gs]et$/]',
          message:
            'An accessor in an object literal gives each object a hidden class of its own, ' +
            'and V8 keeps what its closure holds alive until a full collection: ' +
            'put the accessor on a class prototype.',
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // Build scripts run under Node.js.
  {
    files: ['src/web/build.js', 'src/cli/build.js'],
    languageOptions: { globals: { URL: 'readonly', process: 'readonly' } },
  },
)
