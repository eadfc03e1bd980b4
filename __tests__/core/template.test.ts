import { renderTemplate } from '../../src/judge/prompts.js';
import { fillTemplate } from '../../src/core/template.js';

describe('fillTemplate: one pass, values taken as they are', () => {
  const fill = (t: string, vars: Record<string, string>) =>
    fillTemplate(t, /\{([A-Z_]+)\}/g, (n) => (Object.hasOwn(vars, n) ? vars[n] : undefined));

  test('$ sequences in a value are not expanded', () => {
    expect(fill('<{A}>', { A: "price $' now $& $` $$ $1" })).toBe("<price $' now $& $` $$ $1>");
  });
  test('a placeholder inside a value stays the value’s text', () => {
    expect(fill('{A}|{B}', { A: 'say {B} please', B: 'b' })).toBe('say {B} please|b');
  });
  test('a name without a value stays as written', () => {
    expect(fill('{A} {NOPE} ${HOME}', { A: 'a' })).toBe('a {NOPE} ${HOME}');
  });
  test('a pattern that is not global is refused rather than filling only the first', () => {
    expect(() => fillTemplate('{A}{A}', /\{(A)\}/, () => 'x')).toThrow(/global/);
  });
});

describe("the judge's {{ name }} templates", () => {
  test('are filled in one pass with the values as written', () => {
    expect(
      renderTemplate('Q: {{ question }}\nA: {{answer}}\n{{ constructor }}', {
        question: "what is $' and {{ answer }}?",
        answer: '$&',
      }),
    ).toBe("Q: what is $' and {{ answer }}?\nA: $&\n{{ constructor }}");
  });
});
