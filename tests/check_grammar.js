// check_grammar.js — tokenizes .mls files with the TextMate grammar (editors/vscode/syntaxes) the
// way VS Code does (vscode-textmate + vscode-oniguruma) and reports, as file:line:col, every
// character the grammar marks invalid and every region (string, block, parenthesis, bracket)
// still open at the end of a file.
// usage: node check_grammar.js NODE_MODULES GRAMMAR FILE...   (exit 1 on any problem)
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [nodeModules, grammarPath, ...files] = process.argv.slice(2);
  const tm = require(path.join(nodeModules, 'vscode-textmate'));
  const onig = require(path.join(nodeModules, 'vscode-oniguruma'));
  const wasm = fs.readFileSync(path.join(nodeModules, 'vscode-oniguruma', 'release', 'onig.wasm'));
  await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new tm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
      createOnigString: (s) => new onig.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.mls' ? tm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null,
  });
  const grammar = await registry.loadGrammar('source.mls');
  if (!grammar) throw new Error('the grammar does not load: ' + grammarPath);
  const problems = [];
  let lines = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8').split(/\r?\n/);
    let stack = tm.INITIAL;
    let openedAfter = 0;  // the last line that ended outside every region
    text.forEach((line, i) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens)
        if (t.scopes.some((s) => s.startsWith('invalid')))
          problems.push(`${file}:${i + 1}:${t.startIndex + 1}: invalid ` +
                        JSON.stringify(line.slice(t.startIndex, t.endIndex)) + ` (${t.scopes.slice(1).join(' ')})`);
      stack = r.ruleStack;
      if (stack.depth === 1) openedAfter = i + 1;  // the root rule only
      ++lines;
    });
    if (stack.depth !== 1)
      problems.push(`${file}:${openedAfter + 1}: a region opened here or later is never closed`);
  }
  for (const p of problems) console.log(p);
  console.log(`${files.length} files, ${lines} lines tokenized, ${problems.length} problems`);
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => {
  console.error('check_grammar: ' + (e && e.stack ? e.stack : e));
  process.exit(2);
});
