// A plain Verilog testbench for the exported axon_detector, written from the
// docs' Verilog page ("In Verilog"): write a move list, ask two queries, check
// the answers through the fields of axon_detector_params.vh. In a directory
// that holds this file, with Icarus Verilog (each command after its "$"):
//   $ axon export --verilog -o axon_detector.v
//   $ iverilog -g2005 -o tb axon_detector_tb.v axon_detector.v && vvp -n tb
// or with Verilator (5.0 or later):
//   $ axon export --verilog -o axon_detector.v
//   $ verilator --binary --top-module tb axon_detector_tb.v axon_detector.v && obj_dir/Vtb
// It prints PASS and exits 0, or prints a FAIL line for each wrong answer and
// exits 1.
`timescale 1ns/1ps
module tb;
  `include "axon_detector_params.vh"
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg                              query__start = 0;
  reg  [AXON_DETECTOR_ADDR_BITS-1:0] query__top = 0;
  reg  [AXON_DETECTOR_ROOT_BITS-1:0] query__root = AXON_DETECTOR_ROOT_NONE;
  reg  [3:0]                       query__count_limit = 1;
  wire                             query__busy, query__done;
  wire [AXON_DETECTOR_RESULT_BITS-1:0] query__result;
  wire [15:0]                      query__cycles;
  reg  [AXON_DETECTOR_ADDR_BITS-1:0] memory__write_addr = 0, memory__read_addr = 0;
  reg  [AXON_DETECTOR_WORD_BITS-1:0] memory__write_word = 0;
  reg                              memory__write_en = 0;
  wire                             memory__write_refused;
  wire [AXON_DETECTOR_WORD_BITS-1:0] memory__read_word;
  reg  [63:0]                      upcoming__occupancy = 0;
  wire [AXON_DETECTOR_UPCOMING_BITS-1:0] upcoming__answer;
  wire                             upcoming__done;
  axon_detector dut(.clk(clk), .rst(rst), .query__start(query__start), .query__top(query__top),
    .query__root(query__root), .query__count_limit(query__count_limit),
    .query__busy(query__busy), .query__done(query__done), .query__result(query__result),
    .query__cycles(query__cycles), .memory__write_addr(memory__write_addr),
    .memory__write_word(memory__write_word), .memory__write_en(memory__write_en),
    .memory__write_refused(memory__write_refused), .memory__read_addr(memory__read_addr),
    .memory__read_word(memory__read_word), .upcoming__occupancy(upcoming__occupancy),
    .upcoming__answer(upcoming__answer), .upcoming__done(upcoming__done));

  // Each field is written and read at its own width, so that Verilator's
  // width warnings have nothing to say.
  function [AXON_DETECTOR_WORD_BITS-1:0] word(input [5:0] from_sq, input [5:0] to_sq,
                                              input [3:0] piece);
    begin
      word = 0;
      word[AXON_DETECTOR_WORD_FROM_SQ_LSB +: AXON_DETECTOR_WORD_FROM_SQ_WIDTH] = from_sq;
      word[AXON_DETECTOR_WORD_TO_SQ_LSB +: AXON_DETECTOR_WORD_TO_SQ_WIDTH] = to_sq;
      word[AXON_DETECTOR_WORD_PIECE_LSB +: AXON_DETECTOR_WORD_PIECE_WIDTH] = piece;
    end
  endfunction

  function [31:0] field(input [AXON_DETECTOR_RESULT_BITS-1:0] result, input integer lsb,
                        input integer width);
    integer bit_index;
    begin
      field = 0;
      for (bit_index = 0; bit_index < width; bit_index = bit_index + 1)
        field[bit_index] = result[lsb + bit_index];
    end
  endfunction

  integer address, failures = 0;
  task query(input integer top, input integer root, input integer expect_count,
             input integer expect_draw);
    begin
      @(negedge clk);
      query__top = top[AXON_DETECTOR_ADDR_BITS-1:0];
      query__root = root[AXON_DETECTOR_ROOT_BITS-1:0];
      query__start = 1;
      @(negedge clk);
      query__start = 0;
      while (!query__done) @(negedge clk);
      if (field(query__result, AXON_DETECTOR_RESULT_REPETITION_LSB, 1) != 1 ||
          field(query__result, AXON_DETECTOR_RESULT_DRAW_LSB, 1) != expect_draw ||
          field(query__result, AXON_DETECTOR_RESULT_COUNT_LSB,
                AXON_DETECTOR_RESULT_COUNT_WIDTH) != expect_count ||
          field(query__result, AXON_DETECTOR_RESULT_DISTANCE_LSB,
                AXON_DETECTOR_RESULT_DISTANCE_WIDTH) != 4 ||
          field(query__result, AXON_DETECTOR_RESULT_STOP_LSB,
                AXON_DETECTOR_RESULT_STOP_WIDTH) != AXON_DETECTOR_STOP_LIMIT) begin
        $display("FAIL: top %0d root %0d result %h", top, root, query__result);
        failures = failures + 1;
      end
    end
  endtask

  initial begin
    // Written for interface 0.3 (CHANGELOG.md): a later one may differ.
    if (AXON_DETECTOR_VERSION_MAJOR != 0 || AXON_DETECTOR_VERSION_MINOR != 3) begin
      $display("FAIL: written for interface 0.3, given %0d.%0d", AXON_DETECTOR_VERSION_MAJOR,
               AXON_DETECTOR_VERSION_MINOR);
      failures = failures + 1;
    end
    repeat (2) @(negedge clk);
    rst = 0;
    if (query__done !== 1'b0) begin $display("FAIL: done after reset"); failures = failures + 1; end
    // Ng1-f3 Ng8-f6 Nf3-g1 Nf6-g8, twice: the start position after addresses 3 and 7.
    for (address = 0; address < 8; address = address + 1) begin
      @(negedge clk);
      memory__write_addr = address[AXON_DETECTOR_ADDR_BITS-1:0];
      case (address % 4)
        0: memory__write_word = word(6, 21, AXON_DETECTOR_PIECE_WHITE_KNIGHT);
        1: memory__write_word = word(62, 45, AXON_DETECTOR_PIECE_BLACK_KNIGHT);
        2: memory__write_word = word(21, 6, AXON_DETECTOR_PIECE_WHITE_KNIGHT);
        default: memory__write_word = word(45, 62, AXON_DETECTOR_PIECE_BLACK_KNIGHT);
      endcase
      memory__write_en = 1;
    end
    @(negedge clk);
    memory__write_en = 0;
    query(7, AXON_DETECTOR_ROOT_NONE, 1, 1);   // inside the search: a draw at the first
    query(7, 3, 2, 1);                          // the root position: a third occurrence
    if (failures != 0) $fatal(1, "%0d wrong answer(s)", failures);
    $display("PASS");
    $finish;
  end
endmodule
