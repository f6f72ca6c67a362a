// Lists statements that start a promise and drop it (an expression statement whose value is a promise, or any
// thenable, neither awaited nor marked `void`) and promises tested as conditions (always true). Since the store
// became asynchronous (store/connection.ts), a dropped store call is a write that may land after its transaction commits, or a rejection that crashes the
// process; `tsc` does not see them. Run: `node --import tsx scripts/floating-promises.mts [file or folder ...]`
// (default: the service, the tests and the scripts). Exits 1 when it finds one. Part of `npm test`.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const PROJECTS = ["api/tsconfig.json", "test/tsconfig.json", "tsconfig.json"];

const targets = (process.argv.length > 2 ? process.argv.slice(2) : ["api/src", "api/scripts", "test", "scripts"]).map((t) => path.resolve(t));

function wanted(file: string): boolean {
  if (file.includes(`${path.sep}node_modules${path.sep}`) || file.endsWith(".d.ts")) return false;
  return targets.some((t) => file === t || (existsSync(t) && statSync(t).isDirectory() && file.startsWith(t + path.sep)));
}

/** Whether `type` is a promise or another thenable (a `then` method), or a union with one. */
function isThenable(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some((t) => isThenable(checker, t));
  const then = type.getProperty("then");
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

/** Whether every value of `type` is a thenable (`Promise | undefined` is a fair thing to test; a bare promise is not). */
function alwaysThenable(type: ts.Type): boolean {
  return type.isUnion() ? type.types.every(alwaysThenable) : type.getProperty("then") !== undefined && !(type.flags & ts.TypeFlags.Any);
}

/** `x = promise` keeps the promise (in `x`): not dropped. */
function isAssignment(expression: ts.Expression): boolean {
  return ts.isBinaryExpression(expression) && expression.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && expression.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
}

const findings: string[] = [];
const seen = new Set<string>();

for (const project of PROJECTS) {
  const configPath = path.join(ROOT, project);
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const files = parsed.fileNames.filter((f) => wanted(path.resolve(f)) && !seen.has(path.resolve(f)));
  if (files.length === 0) continue;
  for (const f of files) seen.add(path.resolve(f));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  const checker = program.getTypeChecker();
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionStatement(node) && !ts.isVoidExpression(node.expression) && !ts.isAwaitExpression(node.expression) && !isAssignment(node.expression)) {
        const type = checker.getTypeAtLocation(node.expression);
        if (isThenable(checker, type)) {
          const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
          findings.push(`${path.relative(ROOT, file)}:${line + 1}:${character + 1}: a promise is dropped: ${node.expression.getText(source).split("\n")[0]!.slice(0, 100)}`);
        }
      }
      // A promise as a condition is always true (`if (!fastPath(req, res))` once fastPath became async).
      const condition =
        ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)
          ? node.expression
          : ts.isConditionalExpression(node)
            ? node.condition
            : ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken
            ? node.operand
            : ts.isBinaryExpression(node) && (node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken || node.operatorToken.kind === ts.SyntaxKind.BarBarToken)
              ? node.left
              : null;
      if (condition && alwaysThenable(checker.getTypeAtLocation(condition))) {
        const { line, character } = source.getLineAndCharacterOfPosition(condition.getStart(source));
        findings.push(`${path.relative(ROOT, file)}:${line + 1}:${character + 1}: a promise is tested as a condition (always true): ${condition.getText(source).split("\n")[0]!.slice(0, 100)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

for (const f of findings) console.log(f);
console.log(`floating promises: ${findings.length} in ${seen.size} files`);
process.exit(findings.length === 0 ? 0 : 1);
