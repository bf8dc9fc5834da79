#!/bin/sh
# How many workloads a formula edit measures again, on JDOM-sized code.
#
#   bench/fingerprint-formula-edit.sh JDOM_CHECKOUT [PERFLS ...]
#
# JDOM_CHECKOUT is a checkout of github.com/hunterhacker/jdom (its sources
# are copied into a temporary project, never into this repository). The
# project is JDOM's core plus bench/Work.java: 8 methods over JDOM, each
# with a formula at n = 100 and 1000, 16 measurements. For each perfls
# binary given (default: one built from this tree) the script checks the
# project with a cache of its own, edits one formula's bound (1.2 -> 1.3),
# checks again and prints how many measurements each check needed and how
# many the cache answered. Then it times the fingerprint of the project's
# classes (BenchmarkFingerprint). Measurement options are small (2 forks
# of 5 samples): the figure is the count, not the timings.
set -eu
jdom=${1:?usage: $0 JDOM_CHECKOUT [PERFLS ...]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
	(cd "$repo" && go build -o "$work/perfls" ./cmd/perfls)
	set -- "$work/perfls"
fi

proj=$work/project
mkdir -p "$proj/src" "$proj/lib"
cp -r "$jdom/core/src/java/org" "$proj/src/"
cp "$jdom/lib/jaxen-1.2.0.jar" "$proj/lib/"
echo '{"classpath": ["lib/*.jar"]}' > "$proj/perfls.json"
mkdir -p "$proj/src/bench"
formula() { # method generator
	echo "    @SPL(\"SELF[$2](100) <= 1.2 * SELF[$2](1000)\")"
}
{
	cat <<'JAVA'
package bench;
import dev.perfls.*;
import java.io.StringReader;
import java.util.List;
import org.jdom2.*;
import org.jdom2.filter.Filters;
import org.jdom2.input.SAXBuilder;
import org.jdom2.output.Format;
import org.jdom2.output.XMLOutputter;
import org.jdom2.xpath.XPathFactory;
public class Work {
    static Document doc(int n) {
        Element root = new Element("root");
        for (int i = 0; i < n; i++) {
            Element e = new Element("item").setAttribute("id", Integer.toString(i));
            e.addContent(new Element("name").setText("item " + i)).addContent(new Element("value").setText(Integer.toString(i * 7)));
            root.addContent(e);
        }
        return new Document(root);
    }
    public static Iterable<Object[]> sizes(int n) { return List.<Object[]>of(new Object[] {n}); }
    public static Iterable<Object[]> docs(int n) { return List.<Object[]>of(new Object[] {doc(n)}); }
    public static Iterable<Object[]> texts(int n) { return List.<Object[]>of(new Object[] {new XMLOutputter().outputString(doc(n))}); }
JAVA
	formula build sizes
	echo '    public static int build(int n) { return doc(n).getRootElement().getContentSize(); }'
	formula compact docs
	echo '    public static String compact(Document d) { return new XMLOutputter(Format.getCompactFormat()).outputString(d); }'
	formula pretty docs
	echo '    public static String pretty(Document d) { return new XMLOutputter(Format.getPrettyFormat()).outputString(d); }'
	formula parse texts
	echo '    public static Document parse(String xml) throws Exception { return new SAXBuilder().build(new StringReader(xml)); }'
	formula xpath docs
	echo '    public static int xpath(Document d) { return XPathFactory.instance().compile("//item[@id]", Filters.element()).evaluate(d).size(); }'
	formula copy docs
	echo '    public static Document copy(Document d) { return d.clone(); }'
	formula walk docs
	echo '    public static int walk(Document d) { int k = 0; for (Content c : d.getDescendants()) k++; return k; }'
	formula attrs docs
	echo '    public static int attrs(Document d) { int s = 0; for (Element e : d.getRootElement().getChildren()) s += e.getAttributeValue("id").length(); return s; }'
	echo '}'
} > "$proj/src/bench/Work.java"

check() { # perfls label
	"$1" check --forks 2 --samples 5 --max-forks 2 --format json "$proj" > "$work/out.json" 2> "$work/err.txt" || true
	if ! [ -s "$work/out.json" ]; then
		echo "$2: perfls check wrote no result:" >&2
		cat "$work/err.txt" >&2
		exit 1
	fi
	jq -r --arg l "$2" '"\($l): \(.summary.measurements) measurements, \(.summary.cached) from the cache, \(.summary.satisfied) satisfied, \(.summary.seconds) s"' "$work/out.json"
}
for perfls in "$@"; do
	echo "== $perfls"
	cp "$proj/src/bench/Work.java" "$work/Work.java.orig"
	PERFLS_CACHE_DIR=$(mktemp -d -p "$work")
	export PERFLS_CACHE_DIR
	check "$perfls" "first check"
	# One formula's bound, on the first method only.
	sed -i '0,/1.2 \* SELF/s//1.3 * SELF/' "$proj/src/bench/Work.java"
	grep -c '1.3 \* SELF' "$proj/src/bench/Work.java" > /dev/null
	check "$perfls" "after editing one formula (1.2 -> 1.3)"
	"$perfls" daemon stop > /dev/null 2>&1 || true
	cp "$work/Work.java.orig" "$proj/src/bench/Work.java"
done

echo "== fingerprint of the project's classes"
mkdir -p "$work/classes"
find "$proj/src" -name '*.java' > "$work/sources"
javac -nowarn -encoding UTF-8 -cp "$proj/lib/jaxen-1.2.0.jar:$repo/measure/javalib" -d "$work/classes" @"$work/sources" 2>/dev/null
echo "$(find "$work/classes" -name '*.class' | wc -l) class files"
(cd "$repo" && PERFLS_BENCH_CLASSES="$work/classes" go test -p 1 ./cache -run XXX -bench BenchmarkFingerprint -benchtime 100x -count 3 -benchmem | grep Benchmark)
