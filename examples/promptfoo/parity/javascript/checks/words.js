// The default export: a score, 1 for up to three words, less for more.
module.exports = (output) => Math.min(1, 3 / output.split(/\s+/).filter(Boolean).length);

// A named export (file://checks/words.js:mentionsOrder): a grading result from context.vars.
module.exports.mentionsOrder = (output, context) => {
  const named = output.includes(context.vars.order);
  return {
    pass: named,
    score: named ? 1 : 0.2,
    reason: `order ${context.vars.order} ${named ? 'named' : 'missing'}`,
  };
};
