// axon_detector_tb.v: replays tests/expect.jsonl on axon_detector, reading the
// file as it stands when the simulation runs (a case added to it runs, an
// answer changed in it fails). For each line: the move words of "writes"
// through the memory port, then the "query"; it checks every field of
// query__result and upcoming__answer by the names in "expect" (their places
// come from axon_detector_params.vh, through axon_detector_fields.vh),
// query__cycles, the clocks counted from the clock that samples query__start
// to query__done, the clocks from query__done to upcoming__done, and that a
// "refuse" write during the query is refused.
// In the package's directory, with Icarus Verilog or Verilator 5 (each command
// after its "$"):
//   $ iverilog -g2005 -I rtl -I tb -o tb.vvp tb/axon_detector_tb.v rtl/axon_detector.v && vvp -n tb.vvp
//   $ verilator --binary -Irtl -Itb --top-module tb tb/axon_detector_tb.v rtl/axon_detector.v && obj_dir/Vtb
// or through FuseSoC (README.md). +expect=FILE reads another file. It prints
// PASS and exits 0, or a FAIL line for each wrong answer and exits 1.
`timescale 1ns/1ps
module tb;
  `include "axon_detector_params.vh"
  // A key of the file, or a field's name, is kept in this many characters.
  localparam NAME_CHARS = 32;
  // The table of the answer's fields, by name: FIELDS, field_name, ...
  `include "axon_detector_fields.vh"
  // A case's text is kept in this many characters for the FAIL lines.
  localparam TEXT_CHARS = 120;
  // Writes one line may hold, and how deep its JSON may nest.
  localparam MAX_WRITES = 4 * AXON_DETECTOR_DEPTH;
  localparam MAX_LEVELS = 8;
  // Clocks a query may run beyond its expected count before it fails.
  localparam GRACE_CLOCKS = 64;

  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg                                    query__start = 0;
  reg  [AXON_DETECTOR_ADDR_BITS-1:0]     query__top = 0;
  reg  [AXON_DETECTOR_ROOT_ADDRESS_BITS-1:0]     query__root_address = 0;
  reg  [3:0]                             query__count_limit = 0;
  wire                                   query__busy, query__done;
  wire [AXON_DETECTOR_RESULT_BITS-1:0]   query__result;
  wire [15:0]                            query__cycles;
  reg  [AXON_DETECTOR_ADDR_BITS-1:0]     memory__write_addr = 0, memory__read_addr = 0;
  reg  [AXON_DETECTOR_WORD_BITS-1:0]     memory__write_word = 0;
  reg                                    memory__write_en = 0;
  wire                                   memory__write_refused;
  wire [AXON_DETECTOR_WORD_BITS-1:0]     memory__read_word;
  reg  [63:0]                            upcoming__occupancy = 0;
  wire [AXON_DETECTOR_UPCOMING_BITS-1:0] upcoming__answer;
  wire                                   upcoming__done;
  axon_detector dut(.clk(clk), .rst(rst), .query__start(query__start), .query__top(query__top),
    .query__root_address(query__root_address), .query__count_limit(query__count_limit),
    .query__busy(query__busy), .query__done(query__done), .query__result(query__result),
    .query__cycles(query__cycles), .memory__write_addr(memory__write_addr),
    .memory__write_word(memory__write_word), .memory__write_en(memory__write_en),
    .memory__write_refused(memory__write_refused), .memory__read_addr(memory__read_addr),
    .memory__read_word(memory__read_word), .upcoming__occupancy(upcoming__occupancy),
    .upcoming__answer(upcoming__answer), .upcoming__done(upcoming__done));

  // -- Reading the file: one character at a time, a line at a time ---------
  reg [8*1024-1:0] path;
  integer file, ch, line_number, column;
  // Where the reader is: the key of each object level, the element index of
  // each array level.
  integer level;
  reg [8*NAME_CHARS-1:0] key [0:MAX_LEVELS-1];
  reg want_key [0:MAX_LEVELS-1];
  reg is_array [0:MAX_LEVELS-1];
  integer index_at [0:MAX_LEVELS-1];
  reg [8*NAME_CHARS-1:0] text_name;
  reg [8*TEXT_CHARS-1:0] text;
  reg [63:0] number;
  reg negative;

  // What the line says.
  reg [8*TEXT_CHARS-1:0] case_text, version_text;
  reg has_query, has_cycles, has_version, has_refuse;
  integer writes;
  integer write_address [0:MAX_WRITES-1];
  integer write_word [0:MAX_WRITES-1];
  integer top, root_address, count_limit, expect_cycles;
  integer refuse_clock, refuse_address, refuse_word, refuse_stored;
  reg [63:0] occupancy;
  reg [63:0] expected [0:FIELDS-1];
  reg seen [0:FIELDS-1];
  reg [8*NAME_CHARS-1:0] unknown_name;
  integer unknown_vector;
  integer upcoming_done_after = -1;

  integer failures = 0, queries = 0, clocks, later, field, bit_index;
  reg refused;
  reg [8*TEXT_CHARS-1:0] interface_text;
  reg [255:0] answer;
  reg [63:0] got;

  task fail;
    begin
      failures = failures + 1;
      $write("FAIL: %0s line %0d (%0s): ", path, line_number, case_text);
    end
  endtask

  task cannot_read(input [8*64-1:0] what);
    begin
      $display("FAIL: %0s line %0d, column %0d: %0s", path, line_number, column, what);
      $fatal(1, "cannot read the expectations");
    end
  endtask

  task next_char;
    begin
      ch = $fgetc(file);
      column = column + 1;
    end
  endtask

  // The string at the reader (its opening quote read) into text, and its
  // first NAME_CHARS characters into text_name; an escape's character is
  // kept as it is written.
  task read_string;
    begin
      text = 0;
      text_name = 0;
      next_char;
      while (ch != "\"") begin
        if (ch < 0 || ch == "\n") cannot_read("a string that does not end");
        if (ch == "\\") next_char;
        text = {text[8*TEXT_CHARS-9:0], ch[7:0]};
        text_name = {text_name[8*NAME_CHARS-9:0], ch[7:0]};
        next_char;
      end
      next_char;
    end
  endtask

  // The integer at the reader (ch its first character) into number, two's
  // complement; ch is left on the character after it.
  task read_number;
    begin
      number = 0;
      negative = ch == "-";
      if (negative) next_char;
      if (ch < "0" || ch > "9") cannot_read("a number without digits");
      while (ch >= "0" && ch <= "9") begin
        number = number * 64'd10 + {56'd0, ch[7:0]} - 64'd48;
        next_char;
      end
      if (ch == "." || ch == "e" || ch == "E") cannot_read("a number that is not an integer");
      if (negative) number = -number;
    end
  endtask

  // The field of vector (RESULT or UPCOMING) named name, or -1.
  function integer field_named(input integer vector, input [8*NAME_CHARS-1:0] name);
    integer index;
    begin
      field_named = -1;
      for (index = 0; index < FIELDS; index = index + 1)
        if (field_vector[index] == vector && field_name[index] == name) field_named = index;
    end
  endfunction

  // A number, placed by the keys it sits under.
  task take_number;
    begin
      if (level == 1 && key[1] == "upcoming_done_after") upcoming_done_after = number[31:0];
      if (level == 2 && key[1] == "query") begin
        has_query = 1;
        if (key[2] == "top") top = number[31:0];
        if (key[2] == "root_address") root_address = number[31:0];
        if (key[2] == "count_limit") count_limit = number[31:0];
        if (key[2] == "occupancy") occupancy = number;
      end
      if (level == 2 && key[1] == "expect" && key[2] == "cycles") begin
        expect_cycles = number[31:0];
        has_cycles = 1;
      end
      if (level == 3 && key[1] == "expect" && (key[2] == "result" || key[2] == "upcoming")) begin
        field = field_named(key[2] == "result" ? RESULT : UPCOMING, key[3]);
        if (field < 0) begin
          unknown_name = key[3];
          unknown_vector = key[2] == "result" ? RESULT : UPCOMING;
        end else begin
          expected[field] = number;
          seen[field] = 1;
        end
      end
      if (level == 2 && key[1] == "refuse") begin
        has_refuse = 1;
        if (key[2] == "clock") refuse_clock = number[31:0];
        if (key[2] == "address") refuse_address = number[31:0];
        if (key[2] == "word") refuse_word = number[31:0];
        if (key[2] == "stored") refuse_stored = number[31:0];
      end
      if (level == 3 && key[1] == "writes") begin
        if (index_at[2] >= MAX_WRITES) cannot_read("more writes than the testbench keeps");
        if (index_at[3] == 0) write_address[index_at[2]] = number[31:0];
        if (index_at[3] == 1) write_word[index_at[2]] = number[31:0];
        if (index_at[2] + 1 > writes) writes = index_at[2] + 1;
      end
    end
  endtask

  task take_string;
    begin
      if (level == 1 && key[1] == "case") case_text = text;
      if (level == 1 && key[1] == "version") begin
        version_text = text;
        has_version = 1;
      end
    end
  endtask

  // Read the next line into what the line says; more is 0 at the end of the
  // file, content 0 for a line of white space.
  task read_line(output reg more, output reg content);
    begin
      content = 0;
      has_query = 0; has_cycles = 0; has_version = 0; has_refuse = 0;
      writes = 0; unknown_vector = -1; case_text = 0;
      top = 0; root_address = 0; count_limit = 0; occupancy = 0; expect_cycles = 0;
      for (field = 0; field < FIELDS; field = field + 1) begin
        expected[field] = 0;
        seen[field] = 0;
      end
      level = 0;
      column = 0;
      line_number = line_number + 1;
      next_char;
      while (ch >= 0 && ch != "\n") begin
        if (ch != " " && ch != "\t" && ch != "\r") content = 1;
        if (ch == "{" || ch == "[") begin
          if (level + 1 >= MAX_LEVELS) cannot_read("JSON nested too deep");
          level = level + 1;
          is_array[level] = ch == "[";
          want_key[level] = ch == "{";
          key[level] = 0;
          index_at[level] = 0;
          next_char;
        end else if (ch == "}" || ch == "]") begin
          if (level == 0) cannot_read("a bracket closed that was not opened");
          level = level - 1;
          next_char;
        end else if (ch == ",") begin
          if (is_array[level]) index_at[level] = index_at[level] + 1;
          else want_key[level] = 1;
          next_char;
        end else if (ch == ":") begin
          want_key[level] = 0;
          next_char;
        end else if (ch == "\"") begin
          read_string;
          if (!is_array[level] && want_key[level]) key[level] = text_name;
          else take_string;
        end else if (ch == "-" || (ch >= "0" && ch <= "9")) begin
          read_number;
          take_number;
        end else if (ch >= "a" && ch <= "z") begin
          // true, false, null: no key the testbench reads holds one.
          while (ch >= "a" && ch <= "z") next_char;
        end else if (ch == " " || ch == "\t" || ch == "\r") begin
          next_char;
        end else begin
          cannot_read("a character that JSON does not have here");
        end
      end
      if (level != 0) cannot_read("a line whose brackets do not close");
      more = ch >= 0;
    end
  endtask

  // -- Driving the detector: every input on the falling edge ---------------
  task write(input integer address, input integer word);
    begin
      memory__write_addr = address[AXON_DETECTOR_ADDR_BITS-1:0];
      memory__write_word = word[AXON_DETECTOR_WORD_BITS-1:0];
      memory__write_en = 1;
      @(negedge clk);
      memory__write_en = 0;
    end
  endtask

  task present_refused_write;
    begin
      memory__write_addr = refuse_address[AXON_DETECTOR_ADDR_BITS-1:0];
      memory__write_word = refuse_word[AXON_DETECTOR_WORD_BITS-1:0];
      memory__write_en = 1;
      #1 refused = memory__write_refused;
    end
  endtask

  // The field's value in the answer it belongs to.
  task field_value(input integer index);
    begin
      answer = 0;
      if (field_vector[index] == RESULT) answer[AXON_DETECTOR_RESULT_BITS-1:0] = query__result;
      else answer[AXON_DETECTOR_UPCOMING_BITS-1:0] = upcoming__answer;
      got = 0;
      for (bit_index = 0; bit_index < field_width[index]; bit_index = bit_index + 1)
        got[bit_index] = answer[field_lsb[index] + bit_index];
    end
  endtask

  task check_fields;
    begin
      if (unknown_vector >= 0) begin
        fail;
        $display("expect.%0s names %0s, a field the header does not have",
                 unknown_vector == RESULT ? "result" : "upcoming", unknown_name);
      end
      for (field = 0; field < FIELDS; field = field + 1) begin
        field_value(field);
        if (!seen[field]) begin
          fail;
          $display("expect.%0s has no %0s, a field of the header",
                   field_vector[field] == RESULT ? "result" : "upcoming", field_name[field]);
        end else if (got !== expected[field]) begin
          fail;
          $display("%0s.%0s is %0d, expected %0d",
                   field_vector[field] == RESULT ? "result" : "upcoming", field_name[field],
                   got, expected[field]);
        end
      end
    end
  endtask

  // The line's writes, its query, and the checks of its answer. The refused
  // write is tried on clock refuse_clock of the query (0: the clock that
  // samples start), after which its address must still read stored.
  task replay;
    integer index;
    begin
      queries = queries + 1;
      for (index = 0; index < writes; index = index + 1)
        write(write_address[index], write_word[index]);
      query__top = top[AXON_DETECTOR_ADDR_BITS-1:0];
      query__root_address = root_address[AXON_DETECTOR_ROOT_ADDRESS_BITS-1:0];
      query__count_limit = count_limit[3:0];
      upcoming__occupancy = occupancy;
      query__start = 1;
      refused = 0;
      if (has_refuse && refuse_clock == 0) present_refused_write;
      @(negedge clk);
      query__start = 0;
      memory__write_en = 0;
      // The clocks after the one that samples start: on the falling edge
      // after clock n, n of them have passed.
      clocks = 0;
      while (!query__done && clocks <= expect_cycles + GRACE_CLOCKS) begin
        if (has_refuse && refuse_clock == clocks + 1) present_refused_write;
        @(negedge clk);
        memory__write_en = 0;
        clocks = clocks + 1;
      end
      if (!query__done) begin
        fail; $display("query__done did not rise in %0d clocks", clocks);
        $fatal(1, "%0d wrong answer(s)", failures);
      end
      if (query__cycles !== expect_cycles[15:0]) begin
        fail; $display("query__cycles is %0d, expected %0d", query__cycles, expect_cycles);
      end
      if (clocks != expect_cycles) begin
        fail;
        $display("query__done rose %0d clocks after start, expected %0d", clocks, expect_cycles);
      end
      later = 0;
      while (!upcoming__done && later <= upcoming_done_after + GRACE_CLOCKS) begin
        @(negedge clk);
        later = later + 1;
      end
      if (later != upcoming_done_after) begin
        fail; $display("upcoming__done rose %0d clocks after query__done, expected %0d",
                       later, upcoming_done_after);
      end
      check_fields;
      if (has_refuse) begin
        if (!refused) begin
          fail; $display("memory__write_refused stayed 0 on clock %0d", refuse_clock);
        end
        memory__read_addr = refuse_address[AXON_DETECTOR_ADDR_BITS-1:0];
        @(negedge clk);
        @(negedge clk);
        if (memory__read_word !== refuse_stored[AXON_DETECTOR_WORD_BITS-1:0]) begin
          fail; $display("address %0d reads %0d after the refused write, expected %0d",
                         refuse_address, memory__read_word, refuse_stored);
        end
      end
    end
  endtask

  // The first line says what the lines were written for.
  task check_header;
    begin
      $sformat(interface_text, "%0d.%0d.%0d", AXON_DETECTOR_VERSION_MAJOR,
               AXON_DETECTOR_VERSION_MINOR, AXON_DETECTOR_VERSION_PATCH);
      if (!has_version || has_query || upcoming_done_after < 0)
        cannot_read("the first line does not say what the lines were written for");
      if (version_text != interface_text) begin
        $display("FAIL: the header is of interface %0s, the expectations of %0s: %0s",
                 interface_text, version_text, "export them together");
        $fatal(1, "the expectations are of another interface");
      end
    end
  endtask

  reg lines_left, line_content;
  initial begin
    name_fields;
    if (!$value$plusargs("expect=%s", path)) path = "tests/expect.jsonl";
    file = $fopen(path, "r");
    if (file == 0) begin
      $display("FAIL: cannot open %0s (+expect=FILE names another)", path);
      $fatal(1, "no expectations");
    end
    line_number = 0;
    read_line(lines_left, line_content);
    check_header;
    repeat (2) @(negedge clk);
    rst = 0;
    @(negedge clk);
    lines_left = 1;
    while (lines_left) begin
      read_line(lines_left, line_content);
      if (has_query) begin
        if (!has_cycles) cannot_read("a query without expect.cycles");
        replay;
      end else if (line_content) begin
        cannot_read("a line without a query");
      end
    end
    $fclose(file);
    if (failures != 0) $fatal(1, "%0d wrong answer(s) in %0d queries", failures, queries);
    $display("PASS: %0d queries", queries);
    $finish;
  end
endmodule
