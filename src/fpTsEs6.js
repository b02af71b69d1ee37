/**
 * An esbuild plugin for the build scripts (src/cli/build.js,
 * src/web/build.js): the sources import `fp-ts/lib/…`, the CommonJS build
 * Node.js wants, which a bundler keeps whole; this resolves each to the same
 * module of fp-ts's `es6` build, which is tree-shaken and is what io-ts's
 * own ES module build imports (so a bundle holds one fp-ts, not two).
 */
export const fpTsEs6 = {
  name: 'fp-ts-es6',
  setup(b) {
    b.onResolve({ filter: /^fp-ts\/lib\// }, (args) =>
      b.resolve(args.path.replace('fp-ts/lib/', 'fp-ts/es6/'), {
        kind: args.kind,
        resolveDir: args.resolveDir,
      }),
    )
  },
}
