# Convenience wrappers; ./dev.sh is the real entry point (it also works
# where make is not installed yet).
.PHONY: run test setup build format
run:
	./dev.sh run
test:
	./dev.sh test
setup:
	./dev.sh setup
build:
	./dev.sh build
format:
	find core formats prune encode solver check interpret workload cli bench tests fuzz examples -name '*.[ch]' | xargs clang-format -i
