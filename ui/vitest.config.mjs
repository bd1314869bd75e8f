// Component tests render PatternFly: vitest takes its ES module build (the CommonJS one
// requires CSS files, which Node cannot run) and bundles it, so CSS imports resolve to nothing.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const esm = (name) => fileURLToPath(new URL(`node_modules/@patternfly/${name}/dist/esm/index.js`, import.meta.url));

export default defineConfig({
  resolve: { alias: { '@patternfly/react-core': esm('react-core'), '@patternfly/react-table': esm('react-table') } },
  test: { server: { deps: { inline: [/@patternfly\//] } } },
});
