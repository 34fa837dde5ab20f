// A bot as Java users of the ICGA framework wrote them (the framework's own clients were Java): BufferedReader
// lines, System.out.println and flush.  A JVM reserves far more address space than it uses (its class space
// alone is 1 GB), so with mjref's default memory limit (2048 MB of address space) it starts only with
// -XX:CompressedClassSpaceSize=64m or a larger memory_mb.  It throws the tile it drew, passes, wins when asked.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class JavaBot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        List<Integer> hand = new ArrayList<>();
        int me = 0, last = -1;
        for (String line; (line = in.readLine()) != null; ) {
            String[] w = line.trim().split("\\s+");
            switch (w[0]) {
                case "/start": me = Integer.parseInt(w[2]); hand.clear(); break;
                case "/initCard":
                    for (int i = 1; i < w.length; i++) hand.add(Integer.parseInt(w[i]));
                    last = hand.get(hand.size() - 1);
                    break;
                case "/mo": last = Integer.parseInt(w[1]); hand.add(last); break;
                case "/ask":
                    if (w[1].equals("throw")) {
                        System.out.println("/throw " + (hand.contains(last) ? last : hand.get(0)));
                    } else {
                        System.out.println(w[1].equals("hu") ? "/hu" : "/pass");
                    }
                    System.out.flush();
                    break;
                case "/throw": if (Integer.parseInt(w[1]) == me) hand.remove(Integer.valueOf(w[2])); break;
                case "/exit": return;
                default: break;
            }
        }
    }
}
