// A javascript assertion's default export: a score from 0 to 1 (passes at the assertion's threshold).
module.exports = (output) => {
  const words = output.split(/\s+/).filter(Boolean).length;
  return words <= 20 ? 1 : Math.max(0, 1 - (words - 20) / 40);
};

// A named export, chosen with file://checks/reply.js:mentionsOrder: a grading result.
module.exports.mentionsOrder = (output, context) => ({
  pass: output.includes(context.vars.order),
  score: output.includes(context.vars.order) ? 1 : 0,
  reason: `order ${context.vars.order} ${output.includes(context.vars.order) ? 'named' : 'not named'}`,
});
