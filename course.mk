# The instructor's make targets, included by the Makefile (its PY, setup and comma); never in the student
# handout (common/course/sources.py INSTRUCTOR_ONLY).
.PHONY: student summary autograder classroom

# `make student [OUT=build/student]` writes the student handout (a fresh git repository, one commit: stubs for
# the tasks of each lab's tasks.toml, no solutions, no hidden tests; the files git tracks only, with one warning
# line naming untracked ones left out) after its leak scan, which fails the make (exit 1, one line per leak, OUT
# untouched) when it finds a solution line or an instructor file. The release gate is part of `make test`;
# `$(PY) -m common.course gate --all` stubs every task.
student: setup
	$(PY) -m common.course student --out $(or $(OUT),build/student) --classroom

# `make summary REPORTS="build/grade/alice build/grade/bob" [OUT=build/summary]`: one table of a class
# (score per task across submissions, mean, median) and a histogram per task.
summary: setup
	@test -n "$(REPORTS)" || { echo "error: make summary needs REPORTS=<results.json files or grade folders>" >&2; exit 2; }
	$(PY) -m common.grading summary $(REPORTS) --out $(or $(OUT),build/summary)

# `make autograder [OUT=build/autograder] [LAB=lab01]`: Gradescope's autograder.zip (setup.sh, run_autograder, the
# reference with its task files as stubs and its hidden tests). LAB takes several, separated by spaces or commas
# (LAB="lab01 lab04").
autograder: setup
	$(PY) -m common.course autograder --out $(or $(OUT),build/autograder) $(foreach l,$(subst $(comma), ,$(LAB)),--lab $(l))

# `make classroom [OUT=build/classroom]`: GitHub Classroom's .github/workflows/classroom.yml (also in the handout: make student).
classroom: setup
	$(PY) -m common.course classroom --out $(or $(OUT),build/classroom)
