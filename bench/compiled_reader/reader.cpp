// A measurement prototype, not part of the package: the three extract reads of
// stations_generator/osm/one_pass.py (read_layers) written in C++ over libosmium, kept to
// measure what a compiled reader would gain over the Python one. Nothing imports or runs
// it but bench/bench_compiled_reader.py, which builds it, times it against
// `osmium tags-filter` and the project's own read, and checks every mode's counts agree.
//
// Needed node ids are held in a compact set: a sorted vector of the ids and a parallel
// vector of their locations (16 B per needed node).
//
// Build (Debian/Ubuntu packages; tested with libosmium 2.19 and g++ 12):
//
//   apt-get install libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev g++
//   g++ -O2 -std=c++17 -o reader reader.cpp -lz -lbz2 -lexpat -pthread
//
// (-std=c++20 fails: libosmium 2.19's geom/factory.hpp does not compile as C++20.)
//
// Run:
//
//   reader MODE LAYERS.txt FILE.osm.pbf
//
// Counts (points, routes, areas, lines, tracked ways, needed nodes) go to stdout and
// must be the same in every mode; per-read times and memory go to stderr.
//
// MODE
//   m3  mirror of one_pass.py: (1) nodes+ways+relations, (2) ways, (3) nodes+ways
//   n3  nodes decoded once: (1) ways+relations, (2) ways (only the area relations'
//       member ways not tagged themselves; skipped if there are none), (3) nodes+ways
//   d2  two reads with osmium's own location index over EVERY node (comparison):
//       (1) ways+relations, (2) nodes+ways; INDEX env = sparse_mmap_array (default),
//       dense_mmap_array, flex_mem ...
//   s3  n3 through Blobs (below): each read decodes only the blobs of the types it
//       wants (a file sorted nodes, ways, relations; the boundaries found by bisection)
//   r3  through Blobs: (1) relation blobs, (2) way blobs (every tracked way's refs),
//       (3) node and way blobs: node blobs decoded once, way blobs twice
//   b1  through Blobs, each blob decoded once: (1) relation blobs, (2) way blobs (the
//       tracked ways copied into memory), (3) node blobs; then the copied ways located
//   bare-nwr / bare-wr / bare-w / bare-r / bare-nw   decode only (no handler work)
//
// LAYERS.txt: "class key value [route-kind]" lines, class one of point, area:NAME,
// line:NAME, route (bench/bench_compiled_reader.py writes it from the project's catalogue
// and layer prefilters).

#include <osmium/area/assembler.hpp>
#include <osmium/area/multipolygon_manager.hpp>
#include <osmium/geom/wkb.hpp>
#include <osmium/handler/node_locations_for_ways.hpp>
#include <osmium/index/map/all.hpp>
#include <osmium/io/pbf_input.hpp>
#include <osmium/io/detail/pbf_decoder.hpp>
#include <protozero/pbf_reader.hpp>
#include <osmium/memory/buffer.hpp>
#include <osmium/osm.hpp>
#include <osmium/osm/box.hpp>
#include <osmium/visitor.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using u64 = std::uint64_t;
using osmium::osm_entity_bits::node;
using osmium::osm_entity_bits::relation;
using osmium::osm_entity_bits::way;

enum : std::uint8_t { POINT = 1, WATER = 2, ADMIN = 4, COAST = 8, HSR = 16, WATERWAY = 32, ROUTE = 64 };
constexpr std::uint8_t AREA = WATER | ADMIN;
constexpr std::uint8_t LINE = COAST | HSR | WATERWAY;

struct SvHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// key -> (value -> classes); heterogeneous lookup, no string built per tag.
struct Matcher {
    std::deque<std::string> strings;  // what the views below point into
    std::unordered_map<std::string_view, std::unordered_map<std::string_view, std::uint8_t, SvHash>, SvHash> keys;
    std::string_view keep(const std::string& s) {
        for (const auto& t : strings) if (t == s) return t;
        return strings.emplace_back(s);
    }
    std::vector<std::string> route_kinds;
    osmium::TagsFilter area_filter{false};

    void load(const char* path) {
        std::ifstream in{path};
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream ls{line};
            std::string cls, k, v, kind;
            ls >> cls >> k >> v >> kind;
            std::uint8_t bit = cls == "point"                ? POINT
                               : cls == "area:water"         ? WATER
                               : cls == "area:admin"         ? ADMIN
                               : cls == "line:coastline"     ? COAST
                               : cls == "line:high_speed_rail" ? HSR
                               : cls == "line:waterway"      ? WATERWAY
                                                             : ROUTE;
            keys[keep(k)][keep(v)] |= bit;
            if (bit & AREA) area_filter.add_rule(true, osmium::TagMatcher{k, v});
            if (bit == ROUTE) route_kinds.push_back(kind);
        }
    }
    std::uint8_t classify(const osmium::TagList& tags) const {
        std::uint8_t c = 0;
        for (const auto& t : tags) {
            auto k = keys.find(std::string_view{t.key()});
            if (k == keys.end()) continue;
            auto v = k->second.find(std::string_view{t.value()});
            if (v != k->second.end()) c |= v->second;
        }
        return c;
    }
    // The layers' predicates beyond the prefilter (layers.py): admin needs a name,
    // high-speed rail railway=rail, a route a transit kind.
    std::uint8_t refine(std::uint8_t c, const osmium::TagList& tags) const {
        if ((c & ADMIN) && !tags.has_key("name")) c &= ~ADMIN;
        if ((c & HSR) && !tags.has_tag("railway", "rail")) c &= ~HSR;
        if (c & ROUTE) {
            const char* r = tags.get_value_by_key("route");
            if (!r || std::find(route_kinds.begin(), route_kinds.end(), r) == route_kinds.end()) c &= ~ROUTE;
        }
        return c;
    }
};

// Kept tags: "k\0v\0k\0v\0" in one arena; a point / relation refers to (offset, count).
struct Arena {
    std::string bytes;
    std::pair<std::uint32_t, std::uint32_t> add(const osmium::TagList& tags) {
        auto off = static_cast<std::uint32_t>(bytes.size());
        for (const auto& t : tags) {
            bytes.append(t.key()).push_back('\0');
            bytes.append(t.value()).push_back('\0');
        }
        return {off, static_cast<std::uint32_t>(tags.size())};
    }
};

struct Point {
    char kind;  // n, w, r
    std::int64_t id;
    double lon, lat;
    std::uint32_t tags_off, ntags;
};

struct Rel {  // a point relation or a route: its members (nodes, ways) in flat vectors
    std::int64_t id;
    std::uint32_t tags_off, ntags;
    std::uint32_t nodes_off, nnodes, ways_off, nways;
    bool point, route;
};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string rss() {  // VmRSS and VmHWM (peak) of this process
    std::ifstream in{"/proc/self/status"};
    std::string line, out;
    while (std::getline(in, line))
        if (line.rfind("VmRSS", 0) == 0 || line.rfind("VmHWM", 0) == 0) out += line.substr(0, 5) + " " + std::to_string(std::stol(line.substr(6)) / 1024) + " MiB ";
    return out;
}

// The OSMData blobs of a PBF file (offset and size of each blob's data), read by
// pread, so that a read can skip the blobs of the types it does not want without
// decompressing them. In a file sorted by type (nodes, ways, relations) the first blob
// holding a way (a relation) is found by bisection: ~log2(blobs) blobs decoded.
// A decoded blob is a chain of buffers when it did not fit in one (auto_grow::internal):
// the most deeply nested holds the first objects (as osmium::io::Reader::read hands them out).
template <typename F>
void each_part(osmium::memory::Buffer& b, F&& f) {
    while (b.has_nested_buffers()) {
        std::unique_ptr<osmium::memory::Buffer> inner = b.get_last_nested();
        f(*inner);
    }
    f(b);
}

struct Blobs {
    int fd = -1;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> data;  // (offset, size)
    explicit Blobs(const char* path) {
        fd = ::open(path, O_RDONLY);
        if (fd < 0) throw std::runtime_error{"cannot open file"};
        std::uint64_t off = 0;
        std::string header;
        unsigned char len4[4];
        while (::pread(fd, len4, 4, off) == 4) {
            std::uint32_t hlen = (len4[0] << 24) | (len4[1] << 16) | (len4[2] << 8) | len4[3];
            header.resize(hlen);
            if (::pread(fd, &header[0], hlen, off + 4) != ssize_t(hlen)) throw std::runtime_error{"truncated"};
            std::string type;
            std::uint32_t size = 0;
            protozero::pbf_reader msg{header};
            while (msg.next()) {
                if (msg.tag() == 1) type = msg.get_string();
                else if (msg.tag() == 3) size = msg.get_int32();
                else msg.skip();
            }
            if (type == "OSMData") data.emplace_back(off + 4 + hlen, size);
            off += 4 + hlen + size;
        }
    }
    ~Blobs() { if (fd >= 0) ::close(fd); }
    osmium::memory::Buffer decode(std::size_t i, osmium::osm_entity_bits::type types) const {
        std::string raw(data[i].second, '\0');
        if (::pread(fd, &raw[0], raw.size(), data[i].first) != ssize_t(raw.size())) throw std::runtime_error{"read"};
        return osmium::io::detail::PBFDataBlobDecoder{std::move(raw), types, osmium::io::read_meta::no}();
    }
    // The first blob holding an object of type t or later (nodes < ways < relations).
    std::size_t first_with(osmium::item_type t) const {
        std::size_t lo = 0, hi = data.size();
        while (lo < hi) {
            std::size_t mid = (lo + hi) / 2;
            auto b = decode(mid, osmium::osm_entity_bits::nwr);
            bool later = false;
            each_part(b, [&](osmium::memory::Buffer& part) {
                for (const auto& o : part.select<osmium::OSMObject>()) later |= o.type() >= t;
            });
            if (later) hi = mid; else lo = mid + 1;
        }
        return lo;
    }
    // Blobs [first, last) decoded (types) on worker threads, handed over in order.
    template <typename F>
    void each(std::size_t first, std::size_t last, osmium::osm_entity_bits::type types, F&& on_buffer) const {
        std::deque<std::future<osmium::memory::Buffer>> ahead;
        std::size_t next = first;
        const std::size_t depth = 4;
        while (next < last || !ahead.empty()) {
            while (next < last && ahead.size() < depth) {
                ahead.push_back(std::async(std::launch::async, [this, next, types] { return decode(next, types); }));
                ++next;
            }
            osmium::memory::Buffer b = ahead.front().get();
            ahead.pop_front();
            each_part(b, on_buffer);
        }
    }
};

struct Layers {
    const Matcher& m;
    const char* path;
    Arena arena;
    std::vector<Point> points;
    std::vector<Rel> rels;
    std::vector<u64> rel_nodes, rel_ways, stops;
    std::vector<u64> ways;         // tracked way ids (sorted, unique after read 1)
    std::vector<u64> tagged;       // n3: the tagged ways (their refs collected in read 1)
    std::vector<bool> way_found;   // read 2: seen in the file
    std::vector<bool> way_refs_in; // its node refs already collected
    std::vector<u64> needed;       // needed node ids (sorted, unique before read 3)
    std::vector<osmium::Location> locs;  // parallel to needed
    std::vector<u64> box_ways;     // the point relations' member ways (sorted)
    std::vector<osmium::Box> boxes;  // parallel
    osmium::memory::Buffer area_rels{1 << 20, osmium::memory::Buffer::auto_grow::yes};
    std::vector<std::string> line_wkb, area_wkb;
    std::size_t n_lines[3] = {0, 0, 0}, n_water = 0, n_admin = 0, n_routes = 0, n_stops = 0;
    osmium::area::MultipolygonManager<osmium::area::Assembler> manager;
    osmium::geom::WKBFactory<> wkb{osmium::geom::wkb_type::wkb, osmium::geom::out_type::binary};

    const Blobs* blobs = nullptr;  // set: reads skip the blobs of unwanted types
    std::size_t first_way_blob = 0, first_rel_blob = 0;
    void use_blobs(const Blobs& b) {
        blobs = &b;
        first_way_blob = b.first_with(osmium::item_type::way);
        first_rel_blob = b.first_with(osmium::item_type::relation);
        std::fprintf(stderr, "  blobs: %zu (ways from %zu, relations from %zu)\n", b.data.size(), first_way_blob,
                     first_rel_blob);
    }

    Layers(const Matcher& mm, const char* p) : m(mm), path(p), manager(osmium::area::Assembler::config_type{}, mm.area_filter) {}

    template <typename F>
    void read(osmium::osm_entity_bits::type types, F&& on_buffer) {
        double t = now();
        if (blobs) {  // only the blobs that can hold the types asked for
            std::size_t n = blobs->data.size();
            std::size_t first = (types & node) ? 0 : (types & way) ? first_way_blob : first_rel_blob;
            std::size_t last = (types & relation) ? n : (types & way) ? first_rel_blob + 1 : first_way_blob + 1;
            blobs->each(first, std::min(last, n), types, on_buffer);
        } else {
            osmium::io::Reader reader{path, types, osmium::io::read_meta::no};
            while (osmium::memory::Buffer buffer = reader.read()) on_buffer(buffer);
            reader.close();
        }
        malloc_trim(0);  // the decoded buffers freed by this thread, handed back
        std::fprintf(stderr, "  read %s%s%s: %.2f s, %s\n", (types & node) ? "n" : "", (types & way) ? "w" : "",
                     (types & relation) ? "r" : "", now() - t, rss().c_str());
    }

    void point_node(const osmium::Node& n) {
        if (n.tags().empty()) return;
        std::uint8_t c = m.classify(n.tags());
        if (!(c & POINT) || !n.location().valid()) return;
        auto [off, cnt] = arena.add(n.tags());
        points.push_back({'n', n.id(), n.location().lon(), n.location().lat(), off, cnt});
    }

    void first_way(const osmium::Way& w, bool refs) {
        if (w.tags().empty() || !m.classify(w.tags())) return;
        ways.push_back(static_cast<u64>(w.id()));
        if (refs) tagged.push_back(static_cast<u64>(w.id()));
        if (refs) add_refs(w.nodes());
    }

    void first_relation(const osmium::Relation& r) {
        if (r.tags().empty()) return;
        std::uint8_t c = m.classify(r.tags());
        if (!c) return;
        c = m.refine(c, r.tags());
        if (c & (POINT | ROUTE)) {
            Rel rel{r.id(), 0, 0, static_cast<std::uint32_t>(rel_nodes.size()), 0,
                    static_cast<std::uint32_t>(rel_ways.size()), 0, bool(c & POINT), bool(c & ROUTE)};
            std::tie(rel.tags_off, rel.ntags) = arena.add(r.tags());
            for (const auto& mb : r.members()) {
                if (mb.type() == osmium::item_type::node) {
                    bool stop = !std::strncmp(mb.role(), "stop", 4) || !std::strncmp(mb.role(), "platform", 8);
                    if (rel.point || stop) { rel_nodes.push_back(mb.ref()); ++rel.nnodes; }
                } else if (mb.type() == osmium::item_type::way && rel.point) {
                    rel_ways.push_back(mb.ref()); ++rel.nways;
                    ways.push_back(mb.ref());
                    box_ways.push_back(mb.ref());
                }
            }
            rels.push_back(rel);
        }
        if ((c & AREA) && manager.new_relation(r)) {
            area_rels.add_item(r);
            area_rels.commit();
            for (const auto& mb : r.members())
                if (mb.type() == osmium::item_type::way) ways.push_back(mb.ref());
        }
    }

    // The needed node ids arrive with repeats (nodes shared by ways): sorted and made
    // unique whenever they have doubled, so they never take much more than 8 B an id.
    std::size_t dedupe_at = 1 << 20;
    void add_refs(const osmium::WayNodeList& nodes) {
        for (const auto& nr : nodes) needed.push_back(static_cast<u64>(nr.ref()));
        if (needed.size() >= dedupe_at) {
            std::sort(needed.begin(), needed.end());
            needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
            dedupe_at = std::max<std::size_t>(2 * needed.size(), 1 << 20);
        }
    }

    static void sort_unique(std::vector<u64>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        v.shrink_to_fit();
    }

    std::size_t way_index(u64 id) const {
        auto it = std::lower_bound(ways.begin(), ways.end(), id);
        return (it != ways.end() && *it == id) ? std::size_t(it - ways.begin()) : SIZE_MAX;
    }

    // Read 1. nodes: whether the point nodes are read here (m3) or in read 3 (n3);
    // refs: whether the tagged ways' node refs are collected here (n3).
    void read1(bool nodes, bool refs, bool ways_too = true) {
        read((nodes ? node : osmium::osm_entity_bits::nothing) | (ways_too ? way : osmium::osm_entity_bits::nothing) | relation, [&](osmium::memory::Buffer& b) {
            for (const auto& item : b.select<osmium::OSMObject>()) {
                if (item.type() == osmium::item_type::node) point_node(static_cast<const osmium::Node&>(item));
                else if (item.type() == osmium::item_type::way) first_way(static_cast<const osmium::Way&>(item), refs);
                else first_relation(static_cast<const osmium::Relation&>(item));
            }
        });
        // The tagged ways (if refs) have their refs in; mark them before adding relations' ways.
        sort_unique(ways);
        sort_unique(box_ways);
        way_found.assign(ways.size(), false);
        way_refs_in.assign(ways.size(), false);
        for (u64 id : tagged) { auto i = way_index(id); way_found[i] = way_refs_in[i] = true; }
        tagged = {};
    }

    // Read 2: the tracked ways' refs not collected yet (and which ways the file holds);
    // then the complete area relations to the assembler's first pass.
    osmium::memory::Buffer stored{1024, osmium::memory::Buffer::auto_grow::yes};  // b1: the tracked ways
    bool store = false;

    void read2(bool tagged_too = false) {
        bool any = tagged_too || std::find(way_refs_in.begin(), way_refs_in.end(), false) != way_refs_in.end();
        if (any) {
            std::size_t cur = 0;
            read(way, [&](osmium::memory::Buffer& b) {
                for (const auto& w : b.select<osmium::Way>()) {
                    u64 id = static_cast<u64>(w.id());
                    while (cur < ways.size() && ways[cur] < id) ++cur;  // ways come sorted
                    if (cur == ways.size() || ways[cur] != id) {
                        if (tagged_too && !w.tags().empty() && m.classify(w.tags())) {
                            tagged.push_back(id);
                            add_refs(w.nodes());
                            if (store) { stored.add_item(w); stored.commit(); }
                        }
                        continue;
                    }
                    way_found[cur] = true;
                    if (!way_refs_in[cur]) {
                        add_refs(w.nodes());
                        way_refs_in[cur] = true;
                        if (store) { stored.add_item(w); stored.commit(); }
                    }
                }
            });
        }
        std::size_t complete = 0, incomplete = 0;
        for (const auto& r : area_rels.select<osmium::Relation>()) {
            bool ok = true;
            for (const auto& mb : r.members()) {
                if (mb.type() != osmium::item_type::way) continue;
                auto i = way_index(mb.ref());
                if (i == SIZE_MAX || !way_found[i]) { ok = false; break; }
            }
            if (ok) { manager.relation(r); ++complete; } else ++incomplete;
        }
        area_rels = osmium::memory::Buffer{1024, osmium::memory::Buffer::auto_grow::yes};  // its memory freed
        manager.prepare_for_lookup();
        if (tagged_too) {  // the tagged ways found in this read join the tracked ways
            std::vector<u64> all;
            all.reserve(ways.size() + tagged.size());
            std::merge(ways.begin(), ways.end(), tagged.begin(), tagged.end(), std::back_inserter(all));
            ways.swap(all);
            tagged = {};
        }
        needed.insert(needed.end(), rel_nodes.begin(), rel_nodes.end());
        sort_unique(needed);
        locs.assign(needed.size(), osmium::Location{});
        build_buckets();
        std::fprintf(stderr, "  area relations: %zu complete, %zu incomplete; tracked ways %zu; needed nodes %zu\n",
                     complete, incomplete, ways.size(), needed.size());
    }

    // needed[bucket[id >> SHIFT] .. bucket[(id >> SHIFT) + 1]) holds the ids of that bucket:
    // a lookup is one table read and a binary search over a few entries (4 B per 65536 ids).
    static constexpr int SHIFT = 16;
    std::vector<std::uint32_t> bucket;
    void build_buckets() {
        std::size_t nb = needed.empty() ? 1 : (needed.back() >> SHIFT) + 2;
        bucket.assign(nb, 0);
        std::size_t i = 0;
        for (std::size_t b = 0; b < nb; ++b) {
            while (i < needed.size() && (needed[i] >> SHIFT) < b) ++i;
            bucket[b] = static_cast<std::uint32_t>(i);
        }
    }
    osmium::Location where(u64 id) const {
        std::size_t b = id >> SHIFT;
        if (b + 1 >= bucket.size()) return osmium::Location{};
        auto first = needed.begin() + bucket[b], last = needed.begin() + bucket[b + 1];
        auto it = std::lower_bound(first, last, id);
        return (it != last && *it == id) ? locs[it - needed.begin()] : osmium::Location{};
    }

    void on_areas(osmium::memory::Buffer&& buffer) {
        for (const auto& a : buffer.select<osmium::Area>()) {
            std::uint8_t c = m.refine(m.classify(a.tags()), a.tags());
            if (!(c & AREA)) continue;
            try {
                area_wkb.push_back(wkb.create_multipolygon(a));
            } catch (const osmium::geometry_error&) { continue; }
            n_water += bool(c & WATER);
            n_admin += bool(c & ADMIN);
        }
    }

    // The work of read 3 on one located way: line, point centre, relation member box, areas.
    void geometry_way(osmium::Way& w) {
        std::uint8_t c = w.tags().empty() ? 0 : m.refine(m.classify(w.tags()), w.tags());
        if (c & LINE) {
            try {
                line_wkb.push_back(wkb.create_linestring(w));
                n_lines[0] += bool(c & COAST); n_lines[1] += bool(c & HSR); n_lines[2] += bool(c & WATERWAY);
            } catch (const osmium::geometry_error&) {}
        }
        bool boxed = std::binary_search(box_ways.begin(), box_ways.end(), static_cast<u64>(w.id()));
        if ((c & POINT) || boxed) {
            osmium::Box box;
            for (const auto& nr : w.nodes()) if (nr.location().valid()) box.extend(nr.location());
            if (box.valid()) {
                if (boxed) boxes[std::lower_bound(box_ways.begin(), box_ways.end(), u64(w.id())) - box_ways.begin()] = box;
                if (c & POINT) {
                    auto [off, cnt] = arena.add(w.tags());
                    points.push_back({'w', w.id(), (box.bottom_left().lon() + box.top_right().lon()) / 2,
                                      (box.bottom_left().lat() + box.top_right().lat()) / 2, off, cnt});
                }
            }
        }
    }

    // Read 3: the needed nodes' locations (and point nodes if asked), the tracked ways
    // located, lines and areas built.
    void read3(bool point_nodes) {
        boxes.assign(box_ways.size(), osmium::Box{});
        auto& pass2 = manager.handler([this](osmium::memory::Buffer&& b) { on_areas(std::move(b)); });
        std::size_t ncur = 0, wcur = 0;
        read(node | way, [&](osmium::memory::Buffer& b) {
            for (auto& item : b.select<osmium::OSMObject>()) {
                if (item.type() == osmium::item_type::node) {
                    auto& n = static_cast<osmium::Node&>(item);
                    if (point_nodes) point_node(n);
                    u64 id = static_cast<u64>(n.id());
                    while (ncur < needed.size() && needed[ncur] < id) ++ncur;  // nodes come sorted
                    if (ncur < needed.size() && needed[ncur] == id) locs[ncur] = n.location();
                } else {
                    auto& w = static_cast<osmium::Way&>(item);
                    u64 id = static_cast<u64>(w.id());
                    while (wcur < ways.size() && ways[wcur] < id) ++wcur;
                    if (wcur == ways.size() || ways[wcur] != id) continue;
                    for (auto& nr : w.nodes()) nr.set_location(where(static_cast<u64>(nr.ref())));
                    geometry_way(w);
                    pass2.way(w);
                }
            }
            pass2.flush();
        });
        manager.flush_output();
    }

    // b1's last read: the node blobs alone (points, the needed locations), then the
    // tracked ways copied in read 2 located and built, in id order, from memory.
    void read3_stored() {
        boxes.assign(box_ways.size(), osmium::Box{});
        auto& pass2 = manager.handler([this](osmium::memory::Buffer&& b) { on_areas(std::move(b)); });
        std::size_t ncur = 0;
        read(node, [&](osmium::memory::Buffer& b) {
            for (auto& n : b.select<osmium::Node>()) {
                point_node(n);
                u64 id = static_cast<u64>(n.id());
                while (ncur < needed.size() && needed[ncur] < id) ++ncur;
                if (ncur < needed.size() && needed[ncur] == id) locs[ncur] = n.location();
            }
        });
        double t = now();
        std::size_t count = 0;
        for (auto& w : stored.select<osmium::Way>()) {
            for (auto& nr : w.nodes()) nr.set_location(where(static_cast<u64>(nr.ref())));
            geometry_way(w);
            pass2.way(w);
            if (++count % 8000 == 0) pass2.flush();
        }
        pass2.flush();
        manager.flush_output();
        std::fprintf(stderr, "  stored ways (%.1f MiB) built: %.2f s, %s\n", stored.committed() / 1048576.0, now() - t,
                     rss().c_str());
        stored = osmium::memory::Buffer{1024, osmium::memory::Buffer::auto_grow::yes};
    }

    void finish() {
        for (const auto& r : rels) {
            if (r.route) {
                std::size_t found = 0;
                for (std::uint32_t i = 0; i < r.nnodes; ++i)
                    if (where(rel_nodes[r.nodes_off + i]).valid()) ++found;
                n_stops += found;
                n_routes += found > 0;
            }
            if (!r.point) continue;
            osmium::Box box;
            for (std::uint32_t i = 0; i < r.nnodes; ++i) {
                auto l = where(rel_nodes[r.nodes_off + i]);
                if (l.valid()) box.extend(l);
            }
            for (std::uint32_t i = 0; i < r.nways; ++i) {
                auto it = std::lower_bound(box_ways.begin(), box_ways.end(), rel_ways[r.ways_off + i]);
                if (it != box_ways.end() && *it == rel_ways[r.ways_off + i] && boxes[it - box_ways.begin()].valid())
                    box.extend(boxes[it - box_ways.begin()]);
            }
            if (box.valid())
                points.push_back({'r', r.id, (box.bottom_left().lon() + box.top_right().lon()) / 2,
                                  (box.bottom_left().lat() + box.top_right().lat()) / 2, r.tags_off, r.ntags});
        }
        std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
            return a.kind != b.kind ? a.kind < b.kind : a.id < b.id;  // n < r < w: order only
        });
    }

    void report() const {
        std::size_t pn = 0, pw = 0, pr = 0, lb = 0, ab = 0;
        for (const auto& p : points) (p.kind == 'n' ? pn : p.kind == 'w' ? pw : pr)++;
        for (const auto& s : line_wkb) lb += s.size();
        for (const auto& s : area_wkb) ab += s.size();
        std::printf("points %zu (node %zu, way %zu, relation %zu)\n", points.size(), pn, pw, pr);
        std::printf("routes %zu (stops %zu)\n", n_routes, n_stops);
        std::printf("areas: water %zu, admin %zu (%zu WKB, %zu bytes)\n", n_water, n_admin, area_wkb.size(), ab);
        std::printf("lines: coastline %zu, high_speed_rail %zu, waterway %zu (%zu bytes)\n", n_lines[0], n_lines[1],
                    n_lines[2], lb);
        std::printf("tracked ways %zu, needed nodes %zu (%.1f MiB ids+locations)\n", ways.size(), needed.size(),
                    needed.size() * 16.0 / 1048576);
        auto mib = [](double b) { return b / 1048576; };
        std::fprintf(stderr, "  held (MiB): ids+locations %.1f (capacity), way ids %.1f, points %.1f + tags %.1f, "
                     "relations' members %.1f, area WKB %.1f, line WKB %.1f\n",
                     mib(needed.capacity() * 8.0 + locs.capacity() * 8.0 + bucket.capacity() * 4.0), mib(ways.capacity() * 8.0),
                     mib(points.capacity() * sizeof(Point)), mib(arena.bytes.capacity()),
                     mib((rel_nodes.capacity() + rel_ways.capacity()) * 8.0 + rels.capacity() * sizeof(Rel)),
                     mib(double(ab) + area_wkb.capacity() * sizeof(std::string)), mib(double(lb)));
    }
};

// d2: two reads, osmium's location index over every node.
void run_d2(Layers& L) {
    L.read1(false, true);
    // Complete area relations: a way missing from the file cannot be known without a
    // ways read; d2 hands every area relation to the assembler (as pyosmium's would).
    for (const auto& r : L.area_rels.select<osmium::Relation>()) L.manager.relation(r);
    L.area_rels.clear();
    L.manager.prepare_for_lookup();
    const char* kind = std::getenv("INDEX") ? std::getenv("INDEX") : "sparse_mmap_array";
    auto index = osmium::index::MapFactory<osmium::unsigned_object_id_type, osmium::Location>::instance().create_map(kind);
    osmium::handler::NodeLocationsForWays<osmium::index::map::Map<osmium::unsigned_object_id_type, osmium::Location>>
        locations{*index};
    locations.ignore_errors();
    L.boxes.assign(L.box_ways.size(), osmium::Box{});
    auto& pass2 = L.manager.handler([&L](osmium::memory::Buffer&& b) { L.on_areas(std::move(b)); });
    std::size_t wcur = 0;
    L.read(node | way, [&](osmium::memory::Buffer& b) {
        for (auto& item : b.select<osmium::OSMObject>()) {
            if (item.type() == osmium::item_type::node) {
                auto& n = static_cast<osmium::Node&>(item);
                L.point_node(n);
                locations.node(n);
            } else {
                auto& w = static_cast<osmium::Way&>(item);
                u64 id = static_cast<u64>(w.id());
                while (wcur < L.ways.size() && L.ways[wcur] < id) ++wcur;
                if (wcur == L.ways.size() || L.ways[wcur] != id) continue;
                locations.way(w);
                L.geometry_way(w);
                pass2.way(w);
            }
        }
        pass2.flush();
    });
    L.manager.flush_output();
    // stops / relation members: from the index
    L.needed = L.rel_nodes;
    Layers::sort_unique(L.needed);
    L.locs.resize(L.needed.size());
    L.build_buckets();
    for (std::size_t i = 0; i < L.needed.size(); ++i) {
        try { L.locs[i] = index->get(L.needed[i]); } catch (const osmium::not_found&) {}
    }
    std::fprintf(stderr, "  index %s: %.1f MiB used\n", kind, index->used_memory() / 1048576.0);
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s m3|n3|r3|b1|d2|s3|bare-TYPES LAYERS.txt FILE.osm.pbf\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    // osmium's read-ahead queues: 4 buffers each, as one_pass.py sets (its default is 20).
    for (const char* q : {"OSMIUM_MAX_INPUT_QUEUE_SIZE", "OSMIUM_MAX_OSMDATA_QUEUE_SIZE", "OSMIUM_MAX_WORK_QUEUE_SIZE"})
        setenv(q, "4", 0);
    Matcher m;
    m.load(argv[2]);
    Layers L{m, argv[3]};
    double t = now();
    if (mode.rfind("bare-", 0) == 0) {
        osmium::osm_entity_bits::type types = osmium::osm_entity_bits::nothing;
        for (char ch : mode.substr(5)) types |= ch == 'n' ? node : ch == 'w' ? way : relation;
        std::size_t count = 0;
        L.read(types, [&](osmium::memory::Buffer& b) { for (const auto& o : b.select<osmium::OSMObject>()) count += o.id() & 1; });
        std::printf("%zu odd ids\n", count);
    } else if (mode == "m3") {
        L.read1(true, false);
        L.read2();
        L.read3(false);
        L.finish();
        L.report();
    } else if (mode == "n3") {
        L.read1(false, true);
        L.read2();
        L.read3(true);
        L.finish();
        L.report();
    } else if (mode == "b1") {  // each blob decoded once: relations, ways (kept), nodes
        Blobs blobs{argv[3]};
        L.use_blobs(blobs);
        L.store = true;
        L.read1(false, false, false);
        L.read2(true);
        L.read3_stored();
        L.finish();
        L.report();
    } else if (mode == "s3" || mode == "r3") {
        Blobs blobs{argv[3]};
        L.use_blobs(blobs);
        if (mode == "s3") {  // n3, skipping blobs
            L.read1(false, true);
            L.read2();
        } else {  // relations first, then every tracked way's refs
            L.read1(false, false, false);
            L.read2(true);
        }
        L.read3(true);
        L.finish();
        L.report();
    } else if (mode == "d2") {
        run_d2(L);
        L.finish();
        L.report();
    } else {
        std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
        return 2;
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::fprintf(stderr, "total %.2f s, peak RSS %.1f MiB\n", now() - t, ru.ru_maxrss / 1024.0);
    return 0;
}
