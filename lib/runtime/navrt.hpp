// navrt C++ API, as installed: <navrt.hpp>. The loader (navrt::load, navrt::Asset), the graph view
// (navrt::viewGraph, navrt::GraphView) and navrt::Navigator, which locates points and finds paths
// with any method an asset supports, and the per-kind views (navrt::viewNavmesh, viewTile, ...);
// the search classes it uses are there too. The C API is <navrt.h>.
#pragma once

#include "lib/runtime/navrt_navigator.h"
#include "lib/runtime/navrt_world.h"
#include "lib/runtime/navrt_views.h"
