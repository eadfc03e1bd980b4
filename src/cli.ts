console.log('rubric-eval');
