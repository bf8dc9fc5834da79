public class Strings {
    static final String C1 = "a\tb\nc\\d\"e\'f\bg\rh\fi\sj";
    static final String C2 = "\0\12\101\377\1234\u0041\uuu0042\u00e9\uD83D\uDE00";
    static final String C3 = "\\u0041";
    static final String C4 = "\u005c\u005c";
    static final String C5 = """
        hello
          world\s
        tab\there  
        cont \
        inued
        """;
    static final String C6 = """
        a
        b""";
    static final String C7 = """
          x
        y
            """;
    static final String C8 = """
        \"""quoted\"""
        empty line next

        end\
        """;
    static final String C9 = "n=" + 10 + 'c' + true + (1 + 2) + -5 + 0x10 + 10L;
    static final String C10 = 1 + 2 + "x" + 1 + 2;
    static final char CH = 'q';
    static final int N = 1 << 10;
    static final String C11 = "v" + CH + N + (char) 65 ;
    public static void main(String[] a) {
        String[] all = {C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11};
        for (String s : all) {
            StringBuilder sb = new StringBuilder();
            for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) sb.append(String.format("%02x", b));
            System.out.println(sb);
        }
    }
}
