"""The course edition: a student handout generated from the reference, tasks with points, a grader.

One source of truth: in the reference each student task's code sits between
``### BEGIN SOLUTION <task-id>`` and ``### END SOLUTION``; each lab's ``tasks.toml`` says what the
tasks are; graded tests carry ``@pytest.mark.task("<task-id>", points=N)``. Modules, one job each:

- :mod:`~common.course.tasks`: read and check every ``<lab>/tasks.toml``;
- :mod:`~common.course.markers`: find the solution/stub/hidden-test markers, render the handout text;
- :mod:`~common.course.notimpl`: :class:`NotImplementedTask`, what a handout's stub raises;
- :mod:`~common.course.sheet`: each lab's ``TASKS.md`` from its ``tasks.toml``;
- :mod:`~common.course.sources`: which files make a tree (git's list or a walk), which never ship;
- :mod:`~common.course.content`: the reference checked file by file (markers, tasks, graded tests) and each
  file's handout text;
- :mod:`~common.course.lint`: the handout's linter (a stub's unused imports get their own ``# noqa``);
- :mod:`~common.course.leaks`: the leak scan of a written handout;
- :mod:`~common.course.release`: the handout (``make student``): written, scanned, swapped into ``--out``;
- :mod:`~common.course.plugin`: the pytest plugin (marker, ``--task``, "not implemented" reports);
- :mod:`~common.course.runner`: pytest on a tree, fresh or forked from a warm interpreter;
- :mod:`~common.course.grade`: the grader (``make grade``): Gradescope ``results.json`` per lab;
- :mod:`~common.course.feedback`: :class:`~common.course.feedback.Counterexample`, what a harness raises so
  that a failed property's report (the shrunk case, expected vs actual) reaches the grade report;
- :mod:`~common.course.gate`: the release gate (handout, reference, one task stubbed at a time,
  known-wrong submissions in ``common/course/wrong/``);
- :mod:`~common.course.summary`: the instructor's view of a class: many grade reports in one table;
- :mod:`~common.course.autograder`: Gradescope's ``autograder.zip`` (``setup.sh``, ``run_autograder`` calling the
  grader, the reference without ``results/`` and ``data/``);
- :mod:`~common.course.classroom`: GitHub Classroom's workflow for the handout, one step per task;
- :mod:`~common.course.cliargs`: the commands' checks of where they write (before any work), the ``-v`` help.

Commands: ``python -m common.course {sheet,student,grade,gate,autograder,classroom}`` (see
:mod:`common.course.__main__`) and ``python -m common.grading summary REPORT... [--out DIR]`` (see :mod:`common.grading`).
"""
