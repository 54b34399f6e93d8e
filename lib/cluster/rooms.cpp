// Manual clusters from JSON (level configs and `navbake cluster --rooms` files): one parser.
// The checks here name the JSON path; checkClusterParams repeats the value checks for callers
// that fill ClusterParams themselves, and the cluster stage resolves room names against the
// graph's scene rooms (only known there).
#include <fmt/format.h>

#include <cmath>

#include "lib/cluster/cluster.h"

namespace nav::cluster {

Status parseRooms(JsonReader& reader, ClusterParams& out) {
    if (reader.has("rooms")) {
        const std::string path = reader.at("rooms");
        const auto room_entry = [&](JsonReader& r) -> Status {
            const std::string& at = r.path();
            Room room;
            room.where = r.where();
            if (!r.has("name")) return r.fail(r.at("name"), "missing (the room's unique name)");
            if (Status s = r.string("name", room.name); !s) return s;
            if (room.name.empty()) return r.fail(r.at("name"), "empty (give the room a name)");
            for (const Room& other : out.rooms)
                if (other.name == room.name)
                    return r.fail(r.at("name"), fmt::format("'{}' is the name of {} too", room.name,
                                                            other.where));
            if (Status s = geometry::readRegion(r, at, room.box, room.planes); !s) return s;
            for (size_t a = 0; a < 3; ++a)
                if (room.planes.empty() && room.box.min[a] > room.box.max[a])
                    return r.fail(at, fmt::format("min {} > max {} along {}", room.box.min[a],
                                                  room.box.max[a], "xyz"[a]));
            if (r.has("representative")) {
                if (Status s = r.point("representative", room.representative.data()); !s) return s;
                room.has_representative = true;
            }
            if (Status s = r.finish({"name", "min", "max", "points", "representative"}); !s)
                return s;
            out.rooms.push_back(std::move(room));
            return {};
        };
        if (Status s = reader.objects(
                reader.get("rooms"), path,
                "a non-empty array of {\"name\", \"min\", \"max\"} or {\"name\", \"points\"}", true,
                room_entry);
            !s)
            return s;
    }
    if (reader.has("group_costs")) {
        const auto cost_entry = [&](JsonReader& r) -> Status {
            GroupCost cost;
            cost.where = r.where();
            for (const char* key : {"from", "to", "cost"})
                if (!r.has(key))
                    return r.fail(r.at(key), key == std::string_view("cost")
                                                 ? "missing (the cost, > 0)"
                                                 : "missing (a room's name)");
            if (Status s = r.string("from", cost.from); !s) return s;
            if (Status s = r.string("to", cost.to); !s) return s;
            if (Status s = r.number("cost", cost.cost); !s) return s;
            if (cost.from.empty()) return r.fail(r.at("from"), "empty (a room's name)");
            if (cost.to.empty()) return r.fail(r.at("to"), "empty (a room's name)");
            if (cost.from == cost.to)
                return r.fail(
                    r.at("to"),
                    fmt::format("'{}' is also \"from\": a cost joins two rooms", cost.to));
            if (!(std::isfinite(cost.cost) && cost.cost > 0))
                return r.fail(r.at("cost"), fmt::format("{} (must be > 0)", cost.cost));
            if (Status s = r.finish({"from", "to", "cost"}); !s) return s;
            out.group_costs.push_back(std::move(cost));
            return {};
        };
        return reader.objects(reader.get("group_costs"), reader.at("group_costs"),
                              "a non-empty array of {\"from\", \"to\", \"cost\"}", true,
                              cost_entry);
    }
    return {};
}

Status loadRoomsFile(const std::filesystem::path& file, ClusterParams& out) {
    auto document = loadJson(file);
    if (!document) return document.error();
    JsonReader r(*document, "$", file);
    if (Status s = r.expectObject(); !s) return s;
    if (!r.has("rooms") && !r.has("group_costs"))
        return r.fail("$.rooms", "missing (expected an array of rooms, or \"group_costs\")");
    if (Status s = parseRooms(r, out); !s) return s;
    return r.finish({"$schema", "rooms", "group_costs"});
}

}  // namespace nav::cluster
