from autograder.cli import main

if __name__ == "__main__":  # grading workers are spawned and import this module again
    raise SystemExit(main())
