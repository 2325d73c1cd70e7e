# amaranth: UnusedElaboratable=no
import os

import pytest
from hypothesis import HealthCheck, settings

from axon.sim.backends.waves import wave_file_for_test


# Derandomised in CI so that a red run can be reproduced from its log; a
# developer's run explores new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run long sweeps marked @pytest.mark.slow")
    parser.addoption("--budget", type=int, default=0, metavar="N",
                     help="after the run, list the N slowest tests with the capability "
                          "each covers, and the time each capability takes")


# What each test module pays for: `pytest --budget N` reports the run's time
# by these names, so that a growing run shows which capability grew.
CAPABILITIES = {
    "test_boards.py":       "board builds and fit",
    "test_capacity.py":     "pool layouts and capacity",
    "test_cli.py":          "command line",
    "test_cxxrtl.py":       "CXXRTL backend",
    "test_encode.py":       "move encoding",
    "test_export.py":       "Verilog export",
    "test_formal.py":       "formal proofs",
    "test_fuzz_cli.py":     "command-line errors",
    "test_golden.py":       "golden model against python-chess",
    "test_hdl_params.py":   "embedding API and parameters",
    "test_interrupt.py":    "Ctrl-C",
    "test_layers.py":       "layering",
    "test_link.py":         "host link",
    "test_link_parts.py":   "host link, part by part",
    "test_linksoak.py":     "host link soak",
    "test_netlist.py":      "synthesised netlist",
    "test_pathcheck.py":    "upcoming repetition (gateware)",
    "test_peers.py":        "benchmark peers",
    "test_pgn_input.py":    "PGN input",
    "test_program.py":      "flashing a board",
    "test_readme.py":       "documentation",
    "test_rtl.py":          "RTL against the golden model",
    "test_soak.py":         "soaks",
    "test_uart.py":         "UART",
    "test_upcoming.py":     "upcoming repetition (model)",
    "test_upcoming_rtl.py": "upcoming repetition (RTL)",
    "test_waves.py":        "waveforms",
    "test_word.py":         "move word",
}


# The quick tier, `pytest -m quick`, for the edit loop: a few fast tests of
# every test module, so that every part of the project is exercised once in
# well under two minutes. The default run (what CI runs) is still the gate.
# Each entry is a test name or the start of one (parameters included).
QUICK = {
    "test_boards.py":      ["test_board_has_uart_and_leds", "test_unknown_board",
                            "test_board_parameters_checked", "test_fit_message",
                            "test_build_bad_input", "test_query_bad_input",
                            "test_program_missing_bitstream"],
    "test_capacity.py":    ["test_spill_layout_needs_the_exact_rules", "test_spill_layout_sizes",
                            "test_guarantee_is_tight_for_the_spill_layout",
                            "test_crowded_boards_are_crowded"],
    "test_cli.py":         ["test_scan_jsonl_schema_and_answers", "test_scan_table",
                            "test_explain_reproduces_table2", "test_bad_options",
                            "test_no_command", "test_verify_catches_a_lying_golden_model",
                            "test_window_rule"],
    "test_cxxrtl.py":      ["test_bad_jobs_are_refused_before_running", "test_default_cache_dir",
                            "test_odd_chain_count_is_refused", "test_harness_refuses_garbage"],
    "test_encode.py":      ["test_"],
    "test_export.py":      ["test_header_gives_every_field_and_stop_code",
                            "test_exported_module_ports"],
    "test_formal.py":      ["test_property_holds[frame-parser]", "test_prove_list_is_the_property_table",
                            "test_broken_variant_fails[rules-exact]",
                            "test_pool_sizes_are_the_shipped_ones",
                            "test_termination_bound_is_the_rtl_models_worst_case"],
    "test_fuzz_cli.py":    ["test_impossible_positions_and_illegal_moves",
                            "test_every_command_names_the_fault"],
    "test_golden.py":      ["test_cpw_misses_the_knight_swap", "test_paper_misses_three_knight",
                            "test_exact_sees_three_knight_rotation", "test_table2_in_scan_order",
                            "test_parameter_errors", "test_stops_at_barrier_without_applying_it",
                            "test_count_limit_stops_at_nth_find"],
    "test_hdl_params.py":  ["test_"],
    "test_interrupt.py":   ["test_scan_and_verify_stop"],
    "test_layers.py":      ["test_"],
    "test_link.py":        ["test_crc8_check_value", "test_crc8_gateware_matches_host",
                            "test_frame_decoder_resynchronises", "test_request_checks",
                            "test_answer_to_another_command_is_named",
                            "test_link_error_raised"],
    "test_link_parts.py":  ["test_generated_streams_reach_every_outcome",
                            "test_receiver_matches_reference[0]", "test_broken_receiver_is_caught",
                            "test_sender_matches_reference[0]", "test_broken_sender_is_caught",
                            "test_generated_requests_reach_every_answer"],
    "test_linksoak.py":    ["test_noise_is_never_a_real_request",
                            "test_link_soak_counts_silence_and_hangs_as_lost"],
    "test_netlist.py":     ["test_flip_lut_bit_flips_one_bit", "test_missing_yosys_is_a_clear_error"],
    "test_pathcheck.py":   ["test_latency"],
    "test_peers.py":       ["test_keys_are_polyglot_keys_without_en_passant",
                            "test_peer_game_checks_lengths", "test_golden_python_answers",
                            "test_parameters_are_checked"],
    "test_pgn_input.py":   ["test_study_is_strict_by_default", "test_every_unreadable_game_is_named",
                            "test_plurals", "test_variation_errors_do_not_shift_the_mainline"],
    "test_program.py":     ["test_"],
    "test_readme.py":      ["test_synopsis_lists_every_command", "test_synopsis_matches_help",
                            "test_readme_figures_agree_with_each_other",
                            "test_embedding_example_runs"],
    "test_rtl.py":         ["test_writes_during_a_query_are_refused",
                            "test_lean_scan_takes_one_word_a_clock"],
    "test_soak.py":        ["test_image_kinds", "test_batches_are_reproducible",
                            "test_soak_parameters_are_checked"],
    "test_uart.py":        ["test_divisor_checked", "test_divisor_for", "test_rx_overflow"],
    "test_upcoming.py":    ["test_squares_between_is_python_chess_between",
                            "test_reaches_is_a_move_on_an_empty_board",
                            "test_blocked_or_unreachable_is_no_upcoming",
                            "test_occupancy_must_be_a_bitboard"],
    "test_upcoming_rtl.py": ["test_pysim_a_wrong_occupancy_is_caught",
                             "test_without_upcoming_the_detector_answers_none"],
    "test_waves.py":       ["test_write_gtkw_reports_missing_signals",
                            "test_trace_signals_are_ports"],
    "test_word.py":        ["test_"],
}


def is_quick(item):
    return any(item.name.startswith(prefix) for prefix in QUICK.get(item.path.name, ()))


def pytest_collection_modifyitems(config, items):
    for item in items:
        if is_quick(item):
            item.add_marker(pytest.mark.quick)
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="long sweep: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


@pytest.fixture
def waves(request):
    """A per-test VCD path under ``$AXON_WAVES``, or ``None`` (the default)."""
    return wave_file_for_test(request.node.nodeid)


def pytest_terminal_summary(terminalreporter, config):
    """``--budget N``: the slowest tests and what each capability costs."""
    count = config.getoption("--budget")
    if not count:
        return
    seconds = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                seconds[report.nodeid] = seconds.get(report.nodeid, 0.0) + report.duration
    def capability(nodeid):
        return CAPABILITIES.get(nodeid.split("::")[0].rsplit("/", 1)[-1], "(no capability)")
    write = terminalreporter.write_line
    terminalreporter.section(f"test budget: {sum(seconds.values()):.0f} s in all")
    write(f"the {count} slowest tests:")
    for nodeid, spent in sorted(seconds.items(), key=lambda item: -item[1])[:count]:
        write(f"{spent:7.1f} s  {capability(nodeid):<36}  {nodeid}")
    write("by capability:")
    totals = {}
    for nodeid, spent in seconds.items():
        totals[capability(nodeid)] = totals.get(capability(nodeid), 0.0) + spent
    for name, spent in sorted(totals.items(), key=lambda item: -item[1]):
        write(f"{spent:7.1f} s  {name}")
