// The compiled reader of PBF extracts behind stations_generator/osm/pbf_layers.py.
//
// It reads a PBF file blob by blob (pread + libosmium's blob decoder on worker threads),
// decoding only the blobs that can hold the types a read wants: a PBF extract holds its
// nodes, then its ways, then its relations, so the relations are read from the last blob
// back to the first that holds none, the ways from there back to the first that holds
// none (no search: each read finds where its type begins). Each read hands its
// candidates -- the objects with a tag of the
// read's filter -- to Python one blob at a time (a Batch), and Python's predicates decide
// what is kept. The ids of the tracked ways and of the needed nodes are sorted vectors
// (8 bytes a way id; 10 bytes a needed node with its location), so memory follows what is
// kept, not the file nor how its ids are spread.
//
// Reads (Python drives them, see pbf_layers.py):
//   RELATIONS       relation blobs: candidates with their members; the area relations
//                   Python picks are copied for the assembler
//   RELATIONS_BY_ID relation blobs: the relations of given ids (point relations' children)
//   WAYS            way blobs: the tracked ways' node ids collected; untracked candidate
//                   ways offered to Python (or tracked at once, with auto_keep)
//   NODES_WAYS      node and way blobs: the needed nodes' locations stored; candidate
//                   nodes offered (with their location); each tracked way offered with its
//                   located vertices and handed to libosmium's multipolygon assembler,
//                   whose areas come out as WKB
//
// Errors: std::invalid_argument (Cython: ValueError) when the file cannot be read this way
// (not PBF, history, not sorted by type) -- the caller reads it with pyosmium instead;
// anything else (a damaged file) as std::runtime_error (RuntimeError).
#pragma once

#include <osmium/area/assembler.hpp>
#include <osmium/area/multipolygon_manager.hpp>
#include <osmium/geom/wkb.hpp>
#include <osmium/io/detail/pbf_decoder.hpp>
#include <osmium/memory/buffer.hpp>
#include <osmium/osm.hpp>
#include <protozero/pbf_reader.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sgpbf {

using u64 = std::uint64_t;

enum Phase : int { RELATIONS = 0, RELATIONS_BY_ID = 1, WAYS = 2, NODES_WAYS = 3, AREA_RELATIONS = 4 };

// Objects with one of some (key, value) pairs or one of some keys.
class TagFilter {
    std::deque<std::string> strings_;  // what the views below point into
    std::unordered_map<std::string_view, std::unordered_set<std::string_view>> pairs_;
    std::unordered_set<std::string_view> keys_;

    std::string_view keep(const std::string& s) { return strings_.emplace_back(s); }

public:
    void clear() {
        pairs_.clear();
        keys_.clear();
        strings_.clear();
    }
    void add_pair(const std::string& k, const std::string& v) { pairs_[keep(k)].insert(keep(v)); }
    void add_key(const std::string& k) { keys_.insert(keep(k)); }
    bool empty() const { return pairs_.empty() && keys_.empty(); }
    bool matches(const osmium::TagList& tags) const {
        for (const auto& t : tags) {
            std::string_view k{t.key()};
            if (keys_.count(k)) return true;
            auto it = pairs_.find(k);
            if (it != pairs_.end() && it->second.count(std::string_view{t.value()})) return true;
        }
        return false;
    }
};

// The candidates of one blob, as columns; the strings point into the blob's buffers,
// valid until the next step.
struct Batch {
    std::vector<char> kind;          // 'n', 'w', 'r'
    std::vector<std::int64_t> id;
    std::vector<std::uint32_t> tag_end;  // object i's tags: [tag_end[i-1], tag_end[i])
    std::vector<const char*> keys, values;
    std::vector<double> lon, lat;    // nodes: their location
    std::vector<std::uint32_t> member_end;  // relations' members, as tags
    std::vector<char> member_type;
    std::vector<std::int64_t> member_ref;
    std::vector<const char*> member_role;
    std::vector<std::uint32_t> coord_end;   // located ways: their valid vertices
    std::vector<double> coords;      // lon, lat, lon, lat, ...
    std::vector<const osmium::OSMObject*> object;
    // Areas assembled (from a closed way or a relation).
    std::vector<std::int64_t> area_id;
    std::vector<char> area_from_way;
    std::vector<std::uint32_t> area_tag_end;
    std::vector<const char*> area_keys, area_values;
    std::string area_wkb;
    std::vector<std::uint64_t> area_wkb_end;

    void clear() {
        kind.clear(); id.clear(); tag_end.clear(); keys.clear(); values.clear();
        lon.clear(); lat.clear(); member_end.clear(); member_type.clear(); member_ref.clear();
        member_role.clear(); coord_end.clear(); coords.clear(); object.clear();
        area_id.clear(); area_from_way.clear(); area_tag_end.clear(); area_keys.clear();
        area_values.clear(); area_wkb.clear(); area_wkb_end.clear();
    }

    void add(const osmium::OSMObject& o, char k) {
        kind.push_back(k);
        id.push_back(o.id());
        for (const auto& t : o.tags()) {
            keys.push_back(t.key());
            values.push_back(t.value());
        }
        tag_end.push_back(static_cast<std::uint32_t>(keys.size()));
        object.push_back(&o);
        lon.push_back(0.0);
        lat.push_back(0.0);
        member_end.push_back(static_cast<std::uint32_t>(member_type.size()));
        coord_end.push_back(static_cast<std::uint32_t>(coords.size() / 2));
    }
};

// A decoded blob is a chain of buffers when it did not fit in one: the most deeply
// nested holds the first objects (as osmium::io::Reader hands them out).
inline void split_parts(osmium::memory::Buffer&& b, std::vector<osmium::memory::Buffer>& out) {
    std::vector<osmium::memory::Buffer> nested;
    while (b.has_nested_buffers()) nested.push_back(std::move(*b.get_last_nested()));
    for (auto& n : nested) out.push_back(std::move(n));
    out.push_back(std::move(b));
}

class BlobReader {
    int fd_ = -1;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> blobs_;  // OSMData blobs: (offset, size)
    // The first blob holding a relation: found by the first read of the relations, which
    // goes from the last blob back to the first holding none (a PBF extract holds its
    // nodes, then its ways, then its relations).
    static constexpr std::size_t UNKNOWN = SIZE_MAX;
    std::size_t first_rel_blob_ = UNKNOWN;

    // The read in progress.
    int phase_ = -1;
    osmium::osm_entity_bits::type types_ = osmium::osm_entity_bits::nothing;
    // Blobs [first_, last_) are read; backward_: from the last one back, stopping after
    // the first holding none of the types read (where that type's blobs begin).
    std::size_t first_ = 0, last_ = 0, issued_ = 0;
    bool backward_ = false, done_ = false;
    std::deque<std::future<osmium::memory::Buffer>> ahead_;
    std::vector<osmium::memory::Buffer> parts_;  // the blob being handed out
    std::vector<osmium::memory::Buffer> area_out_;  // areas assembled since the last step
    int last_type_ = 0;
    u64 last_id_ = 0;
    bool flushed_ = false;

    // What is tracked.
    std::vector<u64> ways_;        // tracked way ids, sorted
    std::vector<char> way_found_;  // parallel: seen in the file
    std::vector<char> refs_in_;    // parallel: its node ids collected
    std::vector<u64> new_ways_;    // candidates kept during WAYS (their refs collected)
    std::vector<u64> needed_;      // needed node ids, until the ways read is over
    // Then, sorted and unique, each id as its low 16 bits (its high bits: its bucket),
    // with its location: 10 bytes a needed node.
    std::vector<std::uint16_t> low_;
    std::vector<osmium::Location> locs_;  // parallel to low_
    std::size_t dedupe_at_ = 1 << 20;
    std::vector<std::uint32_t> bucket_;  // low_[bucket_[id >> SHIFT] ...) per 65536 ids
    static constexpr int SHIFT = 16;
    // Blocks decoded ahead on worker threads: two keep two cores busy. A decoded block
    // of relations holds ~15 MB (8000 relations and their members; 4 ahead took +94 MB
    // at 256 tiles, for no time), and the relations are few blocks: one ahead.
    static constexpr std::size_t kReadAhead = 2;
    static constexpr std::size_t kRelationsAhead = 1;
    std::size_t ahead_limit_ = kReadAhead;
    std::vector<u64> rel_ids_;     // RELATIONS_BY_ID: the ids asked for, sorted
    std::vector<u64> extent_ways_;  // NODES_WAYS: ways offered whatever their tags, sorted
    // The area relations Python keeps, until the ways read says which are complete: their
    // ids and member ways (8 bytes a member; the complete ones are read again, by id,
    // for the assembler, which copies them).
    std::vector<u64> area_rel_ids_;
    std::vector<u64> area_members_;
    std::vector<std::size_t> area_member_end_;
    using Manager = osmium::area::MultipolygonManager<osmium::area::Assembler>;
    using Pass2 = std::remove_reference_t<decltype(std::declval<Manager&>().handler())>;
    Manager manager_{osmium::area::Assembler::config_type{}};
    Pass2* pass2_ = nullptr;  // the assembler's second pass (its callback set once)
    osmium::geom::WKBFactory<> wkb_{osmium::geom::wkb_type::wkb, osmium::geom::out_type::binary};
    bool areas_ = false;

    osmium::memory::Buffer decode(std::size_t i, osmium::osm_entity_bits::type types) const {
        std::string raw(blobs_[i].second, '\0');
        if (::pread(fd_, &raw[0], raw.size(), static_cast<off_t>(blobs_[i].first)) != static_cast<ssize_t>(raw.size()))
            throw std::runtime_error{"the file ends inside a block"};
        return osmium::io::detail::PBFDataBlobDecoder{std::move(raw), types, osmium::io::read_meta::no}();
    }

    void read_header(std::uint64_t off, std::uint32_t size) {
        std::string raw(size, '\0');
        if (::pread(fd_, &raw[0], size, static_cast<off_t>(off)) != static_cast<ssize_t>(size))
            throw std::runtime_error{"the file ends inside its header"};
        // The header's blob is compressed like the data's: decode it with no types.
        protozero::pbf_reader blob{raw};
        std::string data;
        protozero::data_view zlib{};
        unsigned long raw_size = 0;  // NOLINT(google-runtime-int): zlib's type
        while (blob.next()) {
            if (blob.tag() == 1) data = blob.get_string();  // raw
            else if (blob.tag() == 2) raw_size = static_cast<unsigned long>(blob.get_int32());
            else if (blob.tag() == 3) zlib = blob.get_view();
            else blob.skip();
        }
        protozero::data_view header_data{data.data(), data.size()};
        std::string inflated;
        if (zlib.size()) {
            if (raw_size == 0 || raw_size > (1U << 25)) throw std::runtime_error{"the header block is damaged"};
            header_data = osmium::io::detail::zlib_uncompress_string(zlib.data(), static_cast<unsigned long>(zlib.size()), raw_size, inflated);
        }
        protozero::pbf_reader header{header_data};
        while (header.next()) {
            if (header.tag() == 4) {  // required_features
                auto f = header.get_string();
                if (f != "OsmSchema-V0.6" && f != "DenseNodes")
                    throw std::invalid_argument{"needs the feature " + f};
            } else header.skip();
        }
    }

    void check_order(const osmium::OSMObject& o) {
        int t = static_cast<int>(o.type());
        if (t < last_type_) throw std::invalid_argument{"not sorted by type"};
        last_type_ = t;
    }

    static void sort_unique(std::vector<u64>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        v.shrink_to_fit();
    }

    std::size_t way_index(u64 id) const {
        auto it = std::lower_bound(ways_.begin(), ways_.end(), id);
        return (it != ways_.end() && *it == id) ? static_cast<std::size_t>(it - ways_.begin()) : SIZE_MAX;
    }

    void add_refs(const osmium::WayNodeList& nodes) {
        for (const auto& nr : nodes) needed_.push_back(static_cast<u64>(nr.ref()));
        if (needed_.size() >= dedupe_at_) {  // shared nodes repeat: keep ~8 bytes an id
            std::sort(needed_.begin(), needed_.end());
            needed_.erase(std::unique(needed_.begin(), needed_.end()), needed_.end());
            dedupe_at_ = std::max<std::size_t>(2 * needed_.size(), 1 << 20);
        }
    }

    std::size_t needed_index(u64 id) const {
        std::size_t b = id >> SHIFT;
        if (b + 1 >= bucket_.size()) return SIZE_MAX;
        auto first = low_.begin() + bucket_[b], last = low_.begin() + bucket_[b + 1];
        auto low = static_cast<std::uint16_t>(id & 0xFFFF);
        auto it = std::lower_bound(first, last, low);
        return (it != last && *it == low) ? static_cast<std::size_t>(it - low_.begin()) : SIZE_MAX;
    }

    osmium::Location where(u64 id) const {
        std::size_t i = needed_index(id);
        return i == SIZE_MAX ? osmium::Location{} : locs_[i];
    }

    void on_areas(osmium::memory::Buffer&& buffer) {
        for (const auto& a : buffer.select<osmium::Area>()) {
            if (!area_filter.matches(a.tags())) continue;
            std::string wkb;
            try {
                wkb = wkb_.create_multipolygon(a);
            } catch (const osmium::geometry_error&) {
                continue;
            }
            batch.area_id.push_back(a.orig_id());
            batch.area_from_way.push_back(a.from_way() ? 1 : 0);
            for (const auto& t : a.tags()) {
                batch.area_keys.push_back(t.key());
                batch.area_values.push_back(t.value());
            }
            batch.area_tag_end.push_back(static_cast<std::uint32_t>(batch.area_keys.size()));
            batch.area_wkb += wkb;
            batch.area_wkb_end.push_back(batch.area_wkb.size());
        }
        area_out_.push_back(std::move(buffer));  // the tags above point into it
    }

    void relation_step(const osmium::Relation& r) {
        if (phase_ == AREA_RELATIONS) {
            if (std::binary_search(rel_ids_.begin(), rel_ids_.end(), static_cast<u64>(r.id())))
                manager_.relation(r);
            return;
        }
        if (phase_ == RELATIONS_BY_ID) {
            if (!std::binary_search(rel_ids_.begin(), rel_ids_.end(), static_cast<u64>(r.id()))) return;
        } else if (r.tags().empty() || !filter.matches(r.tags())) {
            return;
        }
        batch.add(r, 'r');
        for (const auto& m : r.members()) {
            batch.member_type.push_back(m.type() == osmium::item_type::node ? 'n'
                                        : m.type() == osmium::item_type::way ? 'w'
                                                                              : 'r');
            batch.member_ref.push_back(m.ref());
            batch.member_role.push_back(m.role());
        }
        batch.member_end.back() = static_cast<std::uint32_t>(batch.member_type.size());
    }

    void way_step(const osmium::Way& w) {
        u64 id = static_cast<u64>(w.id());
        std::size_t i = way_index(id);
        if (i != SIZE_MAX) {
            way_found_[i] = 1;
            if (!refs_in_[i]) {
                add_refs(w.nodes());
                refs_in_[i] = 1;
            }
            return;
        }
        if (w.tags().empty() || !filter.matches(w.tags())) return;
        if (auto_keep) {
            new_ways_.push_back(id);
            add_refs(w.nodes());
        } else {
            batch.add(w, 'w');
        }
    }

    void node_way_step(osmium::OSMObject& o) {
        if (o.type() == osmium::item_type::node) {
            auto& n = static_cast<osmium::Node&>(o);
            std::size_t i = needed_index(static_cast<u64>(n.id()));
            if (i != SIZE_MAX) locs_[i] = n.location();
            if (!n.tags().empty() && !filter.empty() && n.location().valid() && filter.matches(n.tags())) {
                batch.add(n, 'n');
                batch.lon.back() = n.location().lon();
                batch.lat.back() = n.location().lat();
            }
            return;
        }
        auto& w = static_cast<osmium::Way&>(o);
        u64 id = static_cast<u64>(w.id());
        if (way_index(id) == SIZE_MAX) return;
        // Python gets the ways a layer may keep (their tags pass way_filter) and those
        // whose extent it needs; the others (e.g. boundaries' member ways) only the
        // assembler.
        bool offered = (!w.tags().empty() && way_filter.matches(w.tags())) ||
                       std::binary_search(extent_ways_.begin(), extent_ways_.end(), id);
        if (!offered) {
            for (auto& nr : w.nodes()) nr.set_location(where(static_cast<u64>(nr.ref())));
            if (pass2_) pass2_->way(w);
            return;
        }
        batch.add(w, 'w');
        for (auto& nr : w.nodes()) {
            osmium::Location loc = where(static_cast<u64>(nr.ref()));
            nr.set_location(loc);
            if (loc.valid()) {
                batch.coords.push_back(loc.lon());
                batch.coords.push_back(loc.lat());
            }
        }
        batch.coord_end.back() = static_cast<std::uint32_t>(batch.coords.size() / 2);
        if (pass2_) pass2_->way(w);
    }

    // The OSMData blobs' places, the header checked, the type boundaries found.
    void index_blobs() {
        std::uint64_t off = 0;
        std::string header;
        unsigned char len4[4];
        bool seen_header = false;
        ssize_t got;
        while ((got = ::pread(fd_, len4, 4, static_cast<off_t>(off))) == 4) {
            std::uint32_t hlen = (std::uint32_t(len4[0]) << 24) | (std::uint32_t(len4[1]) << 16) |
                                 (std::uint32_t(len4[2]) << 8) | std::uint32_t(len4[3]);
            if (hlen == 0 || hlen > 64 * 1024) throw std::invalid_argument{"not a PBF file"};
            header.resize(hlen);
            if (::pread(fd_, &header[0], hlen, static_cast<off_t>(off + 4)) != static_cast<ssize_t>(hlen))
                throw std::runtime_error{"the file ends inside a block header"};
            std::string type;
            std::int64_t size = -1;
            protozero::pbf_reader msg{header};
            while (msg.next()) {
                if (msg.tag() == 1) type = msg.get_string();
                else if (msg.tag() == 3) size = msg.get_int32();
                else msg.skip();
            }
            if (size < 0 || size > 64 * 1024 * 1024) throw std::runtime_error{"a block's size is damaged"};
            if (type == "OSMHeader") {
                read_header(off + 4 + hlen, static_cast<std::uint32_t>(size));
                seen_header = true;
            } else if (type == "OSMData") {
                if (!seen_header) throw std::invalid_argument{"not a PBF file"};
                blobs_.emplace_back(off + 4 + hlen, static_cast<std::uint32_t>(size));
            }
            off += 4 + hlen + static_cast<std::uint64_t>(size);
        }
        struct stat st {};
        if (got != 0 || ::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != off)
            throw std::runtime_error{"the file ends inside a block"};
        if (!seen_header) throw std::invalid_argument{"not a PBF file"};
        first_rel_blob_ = UNKNOWN;
    }

public:
    Batch batch;
    TagFilter filter;      // the candidates' filter of the next read (nodes' in NODES_WAYS)
    TagFilter area_filter;  // the assembled areas that come out
    TagFilter way_filter;   // NODES_WAYS: the tracked ways offered to Python
    bool auto_keep = false;  // WAYS: keep every candidate way, offering none to Python

    explicit BlobReader(const std::string& path) {
        fd_ = ::open(path.c_str(), O_RDONLY);
        if (fd_ < 0) throw std::runtime_error{"cannot open the file"};
        try {
            index_blobs();
        } catch (...) {  // (no destructor runs for a constructor that throws)
            ::close(fd_);
            throw;
        }
    }
    BlobReader(const BlobReader&) = delete;
    BlobReader& operator=(const BlobReader&) = delete;
    ~BlobReader() {
        ahead_.clear();  // (each future's thread finishes first)
        if (fd_ >= 0) ::close(fd_);
    }

    std::size_t blob_count() const { return blobs_.size(); }

    void track_ways(const std::int64_t* ids, std::size_t n) {
        ways_.insert(ways_.end(), ids, ids + n);
    }
    void need_nodes(const std::int64_t* ids, std::size_t n) { needed_.insert(needed_.end(), ids, ids + n); }
    void ask_relations(const std::int64_t* ids, std::size_t n) {
        rel_ids_.assign(ids, ids + n);
        sort_unique(rel_ids_);
    }
    void use_areas() { areas_ = true; }
    void offer_ways(const std::int64_t* ids, std::size_t n) {
        extent_ways_.assign(ids, ids + n);
        sort_unique(extent_ways_);
    }

    // Candidate i of the current batch (a relation) goes to the assembler if complete.
    void keep_area_relation(std::size_t i) {
        const auto& r = static_cast<const osmium::Relation&>(*batch.object.at(i));
        if (!manager_.new_relation(r)) return;
        area_rel_ids_.push_back(static_cast<u64>(r.id()));
        for (const auto& m : r.members()) {
            if (m.type() != osmium::item_type::way) continue;
            area_members_.push_back(static_cast<u64>(m.ref()));
            ways_.push_back(static_cast<u64>(m.ref()));
        }
        area_member_end_.push_back(area_members_.size());
    }
    // Candidate i of the current batch (a way) is tracked.
    void keep_way(std::size_t i) {
        const auto& w = static_cast<const osmium::Way&>(*batch.object.at(i));
        new_ways_.push_back(static_cast<u64>(w.id()));
        add_refs(w.nodes());
    }

    void start(int phase) {
        if (phase == WAYS) {  // the tracked ways so far (relations' members) as a sorted set
            sort_unique(ways_);
            way_found_.assign(ways_.size(), 0);
            refs_in_.assign(ways_.size(), 0);
        }
        phase_ = phase;
        std::size_t n = blobs_.size();
        bool known = first_rel_blob_ != UNKNOWN;
        first_ = 0;
        last_ = n;
        backward_ = false;
        if (phase == RELATIONS) {  // back from the end: where the relations begin
            types_ = osmium::osm_entity_bits::relation;
            backward_ = true;
        } else if (phase == RELATIONS_BY_ID || phase == AREA_RELATIONS) {
            types_ = osmium::osm_entity_bits::relation;
            first_ = known ? first_rel_blob_ : 0;
        } else if (phase == WAYS) {  // back from the relations (their first blob may hold ways)
            types_ = known ? osmium::osm_entity_bits::way
                           : (osmium::osm_entity_bits::way | osmium::osm_entity_bits::relation);
            backward_ = true;
            last_ = known ? std::min(n, first_rel_blob_ + 1) : n;
        } else {
            types_ = osmium::osm_entity_bits::node | osmium::osm_entity_bits::way;
            last_ = known ? std::min(n, first_rel_blob_ + 1) : n;
        }
        issued_ = 0;
        ahead_limit_ = types_ == osmium::osm_entity_bits::relation ? kRelationsAhead : kReadAhead;
        done_ = first_ >= last_;
        ahead_.clear();
        parts_.clear();
        area_out_.clear();
        batch.clear();
        ::malloc_trim(0);  // the last read's decoded blocks, freed on worker threads, handed back
        last_type_ = 0;
        flushed_ = false;
    }

    // The next blob's candidates into `batch`; false when the read is over.
    bool step() {
        batch.clear();
        parts_.clear();
        area_out_.clear();
        std::size_t span = last_ - first_;
        while (!done_ && issued_ < span && ahead_.size() < ahead_limit_) {
            std::size_t i = backward_ ? last_ - 1 - issued_ : first_ + issued_;
            ++issued_;
            auto types = types_;
            ahead_.push_back(std::async(std::launch::async, [this, i, types] { return decode(i, types); }));
        }
        if (ahead_.empty()) {
            if (phase_ == NODES_WAYS && pass2_ && !flushed_) {  // the relations' areas
                flushed_ = true;
                manager_.flush_output();
                return true;
            }
            ::malloc_trim(0);  // the read is over: its freed blocks handed back
            return false;
        }
        std::size_t index = backward_ ? last_ - (issued_ - ahead_.size()) - 1 : 0;
        osmium::memory::Buffer b = ahead_.front().get();
        ahead_.pop_front();
        split_parts(std::move(b), parts_);
        bool rel = false, way = false;
        if (backward_) last_type_ = 0;  // (blobs come in reverse: each checked alone)
        for (auto& p : parts_) {
            for (auto& o : p.select<osmium::OSMObject>()) {
                check_order(o);
                if (o.type() == osmium::item_type::relation) {
                    rel = true;
                    if (phase_ == WAYS) continue;  // (read to find where relations begin)
                } else if (o.type() == osmium::item_type::way) {
                    way = true;
                }
                if (phase_ == WAYS) way_step(static_cast<const osmium::Way&>(o));
                else if (phase_ == NODES_WAYS) node_way_step(o);
                else relation_step(static_cast<const osmium::Relation&>(o));
            }
        }
        if (backward_) {
            bool reads_relations = types_ & osmium::osm_entity_bits::relation;
            if (rel && (first_rel_blob_ == UNKNOWN || index < first_rel_blob_)) first_rel_blob_ = index;
            // The last blob holds no relation: the file holds none.
            if (reads_relations && !rel && first_rel_blob_ == UNKNOWN) first_rel_blob_ = index + 1;
            // Reading relations, a blob without one; reading ways, a blob without one
            // below the relations: the blobs before hold none (nodes, then ways, then
            // relations).
            bool below = first_rel_blob_ != UNKNOWN && index < first_rel_blob_;
            if ((phase_ == RELATIONS && !rel) || (phase_ == WAYS && !way && below)) {
                done_ = true;
                ahead_.clear();  // (the blobs decoding ahead are not needed)
            }
        }
        if (phase_ == NODES_WAYS && pass2_) pass2_->flush();
        return true;
    }

    // After WAYS: the kept candidates join the tracked ways; the area relations all of
    // whose member ways the file holds go to the assembler, the others' ids come back;
    // the needed nodes' ids sorted, their locations to come.
    std::vector<std::int64_t> finish_ways() {
        std::vector<std::int64_t> incomplete;
        std::vector<u64> complete;
        std::size_t m = 0;
        for (std::size_t r = 0; r < area_rel_ids_.size(); ++r) {
            bool ok = true;
            for (; m < area_member_end_[r]; ++m) {
                std::size_t i = way_index(area_members_[m]);
                ok = ok && i != SIZE_MAX && way_found_[i];
            }
            if (ok) complete.push_back(area_rel_ids_[r]);
            else incomplete.push_back(static_cast<std::int64_t>(area_rel_ids_[r]));
        }
        area_rel_ids_ = {};
        area_members_ = {};
        area_member_end_ = {};
        if (!complete.empty()) {  // the complete ones, read again, to the assembler
            rel_ids_.swap(complete);
            sort_unique(rel_ids_);
            start(AREA_RELATIONS);
            while (step()) {
            }
            rel_ids_ = {};
        }
        manager_.prepare_for_lookup();
        if (areas_) pass2_ = &manager_.handler([this](osmium::memory::Buffer&& b) { on_areas(std::move(b)); });
        sort_unique(new_ways_);
        std::vector<u64> all;
        all.reserve(ways_.size() + new_ways_.size());
        std::merge(ways_.begin(), ways_.end(), new_ways_.begin(), new_ways_.end(), std::back_inserter(all));
        ways_.swap(all);
        all = {};
        new_ways_ = {};
        way_found_ = {};
        refs_in_ = {};
        sort_unique(needed_);
        std::size_t nb = needed_.empty() ? 1 : (needed_.back() >> SHIFT) + 2;
        bucket_.assign(nb, 0);
        std::size_t i = 0;
        for (std::size_t b = 0; b < nb; ++b) {
            while (i < needed_.size() && (needed_[i] >> SHIFT) < b) ++i;
            bucket_[b] = static_cast<std::uint32_t>(i);
        }
        low_.resize(needed_.size());
        for (std::size_t k = 0; k < needed_.size(); ++k) low_[k] = static_cast<std::uint16_t>(needed_[k] & 0xFFFF);
        needed_ = {};
        locs_.assign(low_.size(), osmium::Location{});
        return incomplete;
    }

    // After NODES_WAYS: a needed node's location (false if the file has none).
    bool location(std::int64_t id, double& lon, double& lat) const {
        osmium::Location l = where(static_cast<u64>(id));
        if (!l.valid()) return false;
        lon = l.lon();
        lat = l.lat();
        return true;
    }

    std::size_t tracked_ways() const { return ways_.size(); }
    std::size_t needed_nodes() const { return low_.size(); }
};

}  // namespace sgpbf
