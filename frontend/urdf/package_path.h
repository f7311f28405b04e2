// Resolution of the file names URDF meshes use: package://PKG/path (ROS), file://path,
// absolute paths, and paths relative to the URDF file's directory.
#pragma once

#include <string>
#include <vector>

namespace talon::urdf {

struct MeshLocation {
  bool found = false;
  std::string path;                   // the resolved file when found
  std::vector<std::string> searched;  // every candidate tried, in order
  std::string problem;                // why nothing could be searched ("" when something was)
  std::string note;                   // how a tolerated irregular URI was read ("" if regular)
};

// Finds the file a mesh `uri` names. package://PKG/rest is looked up in each directory of
// `package_paths`, then of the ROS_PACKAGE_PATH environment variable (':'-separated), as
// DIR/PKG/rest, and also as DIR/rest when DIR itself is the package (its last component is
// PKG), the two layouts ROS tools accept. package:///PKG/rest (three slashes, as some
// published files have it) is read as package://PKG/rest, with a note. file://path and plain paths
// are taken as they are when absolute and relative to the directory of `urdf_path` otherwise.
MeshLocation locate_mesh(const std::string& uri, const std::string& urdf_path,
                         const std::vector<std::string>& package_paths);

// Completes "mesh file 'URI' ...": "not found; searched: a, b", or why nothing was searched.
std::string describe_search(const MeshLocation& location);

}  // namespace talon::urdf
