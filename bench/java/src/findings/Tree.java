package findings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Clean: a recursive walk that visits every node of a tree once and writes it out, as an XML
 * outputter does (JDOM's XMLOutputter#outputString). Its stacks are loops calling loops all the
 * way down, but the work per node does not grow with the tree: print runs once per node.
 */
public final class Tree {
    private Tree() {}

    /** A node with a name and children. */
    public static final class Node {
        final String name;
        final List<Node> children = new ArrayList<>();

        Node(String name) {
            this.name = name;
        }
    }

    public static int render(Node root) {
        StringBuilder out = new StringBuilder();
        print(root, out);
        return out.length();
    }

    private static void print(Node n, StringBuilder out) {
        out.append('<').append(n.name).append('>');
        for (Node c : n.children) {
            print(c, out);
        }
        out.append("</").append(n.name).append('>');
    }

    /** One tree of n nodes, each attached under a random earlier node. */
    public static Iterable<Object[]> trees(int n) {
        Random random = new Random(5);
        List<Node> nodes = new ArrayList<>(n);
        nodes.add(new Node("root"));
        for (int i = 1; i < n; i++) {
            Node node = new Node("n" + (i % 50));
            nodes.get(random.nextInt(i)).children.add(node);
            nodes.add(node);
        }
        return Collections.singletonList(new Object[] {nodes.get(0)});
    }
}
