"""Many matches: schedules, the runner, the results store, statistics, regression and reports."""
