package bench;

import dev.perfls.*;
import java.util.Collections;
import org.jdom2.Document;
import org.jdom2.Element;
import org.jdom2.output.XMLOutputter;

/** Workloads for JDOM, written after the releases they measure (Java 7: the old tags build with --release 7). */
public final class Docs {
    private Docs() {}

    @Generator("an outputter and a document of n elements, each with an attribute and text to escape")
    @SPL({"for n in {2000} org.jdom2.output.XMLOutputter#outputString(org.jdom2.Document)[bench.Docs#doc](n) <= 1.2 * org.jdom2.output.XMLOutputter#outputString(org.jdom2.Document)@JDOM-2.0.6[bench.Docs#doc](n)",
          "for n in {1} org.jdom2.Verifier#checkElementName(String)[bench.Docs#name](n) <= 1.2 * org.jdom2.Verifier#checkElementName(String)@JDOM-2.0.6[bench.Docs#name](n)"})
    public static Iterable<Object[]> doc(@Param(value = "n", min = 2000) int n) {
        Element root = new Element("root");
        for (int i = 0; i < n; i++) {
            Element e = new Element("item");
            e.setAttribute("id", Integer.toString(i));
            e.setText("value <" + i + "> & more");
            root.addContent(e);
        }
        return Collections.singletonList(new Object[] {new XMLOutputter(), new Document(root)});
    }

    @Generator("an element name with a namespace prefix, n parts")
    public static Iterable<Object[]> name(@Param(value = "n", min = 1) int n) {
        StringBuilder b = new StringBuilder("ns:element");
        for (int i = 1; i < n; i++) {
            b.append("-part").append(i);
        }
        return Collections.singletonList(new Object[] {b.toString()});
    }
}
