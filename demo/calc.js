// A safe arithmetic evaluator for the calculator tool: a tokenizer and a precedence-
// climbing parser over numbers, + - * / % ^ (power, right-associative), parentheses,
// unary signs, the constants pi and e, and a few functions. It never calls eval or
// Function: an expression can only compute a number or throw a CalcError.

export class CalcError extends Error {
  name = "CalcError";
}

const FUNCS = {
  sqrt: [1, Math.sqrt],
  abs: [1, Math.abs],
  round: [1, Math.round],
  floor: [1, Math.floor],
  ceil: [1, Math.ceil],
  sin: [1, Math.sin],
  cos: [1, Math.cos],
  tan: [1, Math.tan],
  ln: [1, Math.log],
  log: [1, Math.log10],
  exp: [1, Math.exp],
  min: [-1, Math.min],
  max: [-1, Math.max],
};
const CONSTS = { pi: Math.PI, e: Math.E };
const BINARY = { "+": [1, "l"], "-": [1, "l"], "*": [2, "l"], "/": [2, "l"], "%": [2, "l"], "^": [3, "r"] };

function tokenize(src) {
  const s = src.replace(/[×·]/g, "*").replace(/÷/g, "/").replace(/\*\*/g, "^").replace(/−/g, "-");
  const tokens = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(\d[\d_]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(s.slice(i));
    if (num) {
      tokens.push({ t: "num", v: Number(num[0].replaceAll("_", "")), at: i });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z]+/.exec(s.slice(i));
    if (id) {
      tokens.push({ t: "id", v: id[0].toLowerCase(), at: i });
      i += id[0].length;
      continue;
    }
    if ("+-*/%^(),".includes(c)) {
      tokens.push({ t: c, at: i });
      i++;
      continue;
    }
    throw new CalcError(`unexpected character "${c}" at position ${i + 1}`);
  }
  return tokens;
}

/** evaluate computes an arithmetic expression, e.g. "(17 + 25) * 3 / 2" → 63. */
export function evaluate(src) {
  if (typeof src !== "string") throw new CalcError("the expression must be a string");
  // What people type around an expression: "what is 2+2?", "2 + 2 =".
  const expr = src.trim().replace(/[?=.!\s]+$/, "");
  if (expr === "") throw new CalcError("the expression is empty");
  if (expr.length > 500) throw new CalcError("the expression is too long (500 characters at most)");
  const tokens = tokenize(expr);
  let pos = 0;
  let depth = 0;
  const peek = () => tokens[pos];
  const expect = (t) => {
    const tok = tokens[pos];
    if (!tok || tok.t !== t) throw new CalcError(tok ? `expected "${t}" at position ${tok.at + 1}` : `expected "${t}" at the end`);
    pos++;
  };
  const primary = () => {
    const tok = tokens[pos++];
    if (!tok) throw new CalcError("the expression ends too early");
    switch (tok.t) {
      case "num":
        return tok.v;
      case "+":
        return unary();
      case "-":
        return -unary();
      case "(": {
        if (++depth > 100) throw new CalcError("too many nested parentheses");
        const v = expression(0);
        expect(")");
        depth--;
        return v;
      }
      case "id": {
        if (tok.v in CONSTS) return CONSTS[tok.v];
        const f = FUNCS[tok.v];
        if (!f) throw new CalcError(`unknown name "${tok.v}"`);
        expect("(");
        const args = [expression(0)];
        while (peek()?.t === ",") {
          pos++;
          args.push(expression(0));
        }
        expect(")");
        if (f[0] >= 0 && args.length !== f[0]) throw new CalcError(`${tok.v} takes ${f[0]} argument${f[0] === 1 ? "" : "s"}`);
        return f[1](...args);
      }
      default:
        throw new CalcError(`unexpected "${tok.t}" at position ${tok.at + 1}`);
    }
  };
  // unary binds tighter than * but looser than ^: -2^2 = -4.
  const unary = () => {
    const base = primary();
    if (peek()?.t === "^") {
      pos++;
      return base ** unary();
    }
    return base;
  };
  const expression = (minPrec) => {
    let left = unary();
    for (;;) {
      const tok = peek();
      const op = tok && BINARY[tok.t];
      if (!op || op[0] < minPrec || tok.t === "^") break;
      pos++;
      const right = expression(op[1] === "l" ? op[0] + 1 : op[0]);
      left = apply(tok.t, left, right);
    }
    return left;
  };
  const v = expression(0);
  if (pos < tokens.length) throw new CalcError(`unexpected "${tokens[pos].v ?? tokens[pos].t}" at position ${tokens[pos].at + 1}`);
  if (Number.isNaN(v)) throw new CalcError("the result is not a number");
  if (!Number.isFinite(v)) throw new CalcError("the result is infinite");
  return v;
}

function apply(op, a, b) {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      if (b === 0) throw new CalcError("division by zero");
      return a / b;
    case "%":
      if (b === 0) throw new CalcError("division by zero");
      return a % b;
  }
  throw new CalcError(`unknown operator ${op}`);
}

/** format prints a result without floating-point noise: 0.1 + 0.2 → 0.3. */
export function format(v) {
  return String(Number.parseFloat(v.toPrecision(12)));
}
