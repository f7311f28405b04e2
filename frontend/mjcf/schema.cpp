#include "frontend/mjcf/schema.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/mjcf/attributes.h"

namespace talon::mjcf {
namespace {

// One schema row: the element keys it covers ("parent/element", parent being the context
// of the enclosing element), their attributes (space-separated, in one or more groups
// shared between rows) and whether each may appear at most once per parent.
struct SchemaRow {
  const char* keys;
  std::vector<const char*> attribute_groups;
  bool unique = false;
};

constexpr const char* kActuatorCommon =
    "name class group ctrllimited forcelimited ctrlrange forcerange";
constexpr const char* kCameraAttributes =
    "fovy ipd pos quat axisangle xyaxes zaxis euler mode user";
constexpr const char* kSensorCommon = "cutoff noise user";
constexpr const char* kTransmission =
    "lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite site "
    "refsite";
constexpr const char* kDefaultActuator =
    "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group";
constexpr const char* kJointAttributes =
    "type group pos axis springdamper limited solreflimit solimplimit solreffriction "
    "solimpfriction stiffness range margin ref springref armature damping frictionloss user";
constexpr const char* kGeomAttributes =
    "type contype conaffinity condim group priority size material friction mass density "
    "shellinertia solmix solref solimp margin gap fromto pos quat axisangle xyaxes zaxis euler "
    "hfield mesh fitscale rgba fluidshape fluidcoef user";
constexpr const char* kSiteAttributes =
    "type group pos quat material size fromto axisangle xyaxes zaxis euler rgba user";
constexpr const char* kLightAttributes =
    "directional castshadow active pos dir attenuation cutoff exponent ambient diffuse "
    "specular mode";

// MuJoCo 2.2.2's MJCF schema, transcribed from its documentation (XML reference).
const std::vector<SchemaRow>& schema_rows() {
  static const std::vector<SchemaRow> rows = {
      {"mujoco", {"model"}},
      {"mujoco/compiler",
       {"autolimits boundmass boundinertia settotalmass balanceinertia strippath coordinate angle "
        "fitaabb eulerseq meshdir texturedir discardvisual convexhull usethread fusestatic "
        "inertiafromgeom inertiagrouprange exactmeshinertia"}},
      {"compiler/lengthrange",
       {"mode useexisting uselimit accel maxforce timeconst timestep inttotal inteval tolrange"},
       true},
      {"mujoco/option",
       {"timestep apirate impratio tolerance noslip_tolerance mpr_tolerance gravity wind magnetic "
        "density viscosity o_margin o_solref o_solimp integrator collision cone jacobian solver "
        "iterations noslip_iterations mpr_iterations"}},
      {"option/flag",
       {"constraint equality frictionloss limit contact passive gravity clampctrl warmstart "
        "filterparent actuation refsafe sensor override energy fwdinv sensornoise multiccd"},
       true},
      {"mujoco/size",
       {"njmax nconmax nstack nuserdata nkey nuser_body nuser_jnt nuser_geom nuser_site nuser_cam "
        "nuser_tendon nuser_actuator nuser_sensor"}},
      {"mujoco/visual", {}},
      {"visual/global", {"fovy ipd azimuth elevation linewidth glow offwidth offheight"}, true},
      {"visual/quality", {"shadowsize offsamples numslices numstacks numquads"}, true},
      {"visual/headlight", {"ambient diffuse specular active"}, true},
      {"visual/map",
       {"stiffness stiffnessrot force torque alpha fogstart fogend znear zfar haze shadowclip "
        "shadowscale actuatortendon"},
       true},
      {"visual/scale",
       {"forcewidth contactwidth contactheight connect com camera light selectpoint jointlength "
        "jointwidth actuatorlength actuatorwidth framelength framewidth constraint slidercrank"},
       true},
      {"visual/rgba",
       {"fog haze force inertia joint actuator actuatornegative actuatorpositive com camera light "
        "selectpoint connect contactpoint contactforce contactfriction contacttorque contactgap "
        "rangefinder constraint slidercrank crankbroken"},
       true},
      {"mujoco/statistic", {"meaninertia meanmass meansize extent center"}},
      {"mujoco/default default/default", {"class"}},
      {"default/mesh", {"scale"}, true},
      {"default/material",
       {"texture emission specular shininess reflectance rgba texrepeat texuniform"},
       true},
      {"default/joint", {kJointAttributes}, true},
      {"default/geom", {kGeomAttributes}, true},
      {"default/site", {kSiteAttributes}, true},
      {"default/camera", {kCameraAttributes}, true},
      {"default/light", {kLightAttributes}, true},
      {"default/pair", {"condim friction solref solimp gap margin"}, true},
      {"default/equality", {"active solref solimp"}, true},
      {"default/tendon",
       {"group limited range solreflimit solimplimit solreffriction solimpfriction frictionloss "
        "springlength width material margin stiffness damping rgba user"},
       true},
      {"default/general",
       {kDefaultActuator, "actlimited actrange dyntype gaintype biastype dynprm gainprm biasprm"},
       true},
      {"default/motor", {kDefaultActuator}, true},
      {"default/position", {kDefaultActuator, "kp"}, true},
      {"default/velocity", {kDefaultActuator, "kv"}, true},
      {"default/intvelocity", {kDefaultActuator, "actrange kp"}, true},
      {"default/damper",
       {"forcelimited ctrlrange forcerange gear cranklength user group kv"},
       true},
      {"default/cylinder", {kDefaultActuator, "timeconst area diameter bias"}, true},
      {"default/muscle",
       {kDefaultActuator, "timeconst range force scale lmin lmax vmax fpmax fvmax"},
       true},
      {"default/adhesion", {"forcelimited ctrlrange forcerange gain user group"}, true},
      {"mujoco/custom", {}},
      {"custom/numeric", {"name size data"}},
      {"custom/text", {"name data"}},
      {"custom/tuple", {"name"}},
      {"tuple/element", {"objtype objname prm"}},
      {"mujoco/asset", {}},
      {"asset/texture",
       {"name type file gridsize gridlayout fileright fileleft fileup filedown filefront fileback "
        "builtin rgb1 rgb2 mark markrgb random width height hflip vflip"}},
      {"asset/hfield", {"name file nrow ncol size"}},
      {"asset/mesh",
       {"name class file vertex normal texcoord face refpos refquat scale smoothnormal"}},
      {"asset/skin", {"name file material rgba inflate vertex texcoord face group"}},
      {"skin/bone", {"body bindpos bindquat vertid vertweight"}},
      {"asset/material",
       {"name class texture texrepeat texuniform emission specular shininess reflectance rgba"}},
      {"mujoco/worldbody", {}},
      {"body/body", {"name childclass pos quat mocap axisangle xyaxes zaxis euler user"}},
      {"body/inertial",
       {"pos quat mass diaginertia axisangle xyaxes zaxis euler fullinertia"},
       true},
      {"body/joint", {"name class", kJointAttributes}},
      {"body/freejoint", {"name group"}},
      {"body/geom", {"name class", kGeomAttributes}},
      {"body/site", {"name class", kSiteAttributes}},
      {"body/camera", {"name class target", kCameraAttributes}},
      {"body/light", {"name class target", kLightAttributes}},
      {"body/composite", {}},
      {"mujoco/contact", {}},
      {"contact/pair", {}},
      {"contact/exclude", {"name body1 body2"}},
      {"mujoco/equality", {}},
      {"equality/connect equality/weld equality/joint equality/tendon equality/distance", {}},
      {"mujoco/tendon", {}},
      {"tendon/spatial tendon/fixed", {}},
      {"mujoco/actuator", {}},
      {"actuator/general",
       {kActuatorCommon, kTransmission,
        "actlimited actrange body dyntype gaintype biastype dynprm gainprm biasprm"}},
      {"actuator/motor", {kActuatorCommon, kTransmission}},
      {"actuator/position", {kActuatorCommon, kTransmission, "kp"}},
      {"actuator/velocity", {kActuatorCommon, kTransmission, "kv"}},
      {"actuator/intvelocity", {kActuatorCommon, kTransmission, "actrange kp"}},
      {"actuator/damper",
       {"name class group forcelimited ctrlrange forcerange", kTransmission, "kv"}},
      {"actuator/cylinder", {kActuatorCommon, kTransmission, "timeconst area diameter bias"}},
      {"actuator/muscle",
       {kActuatorCommon,
        "lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite "
        "timeconst range force scale lmin lmax vmax fpmax fvmax"}},
      {"actuator/adhesion", {"name class group forcelimited ctrlrange forcerange user body gain"}},
      {"mujoco/sensor", {}},
      {"sensor/touch sensor/accelerometer sensor/velocimeter sensor/gyro sensor/force "
       "sensor/torque sensor/magnetometer sensor/rangefinder",
       {"name site", kSensorCommon}},
      {"sensor/jointpos sensor/jointvel sensor/ballquat sensor/ballangvel sensor/jointlimitpos "
       "sensor/jointlimitvel sensor/jointlimitfrc",
       {"name joint", kSensorCommon}},
      {"sensor/tendonpos sensor/tendonvel sensor/tendonlimitpos sensor/tendonlimitvel "
       "sensor/tendonlimitfrc",
       {"name tendon", kSensorCommon}},
      {"sensor/actuatorpos sensor/actuatorvel sensor/actuatorfrc",
       {"name actuator", kSensorCommon}},
      {"sensor/framepos sensor/framequat sensor/framexaxis sensor/frameyaxis sensor/framezaxis "
       "sensor/framelinvel sensor/frameangvel",
       {"name objtype objname reftype refname", kSensorCommon}},
      {"sensor/framelinacc sensor/frameangacc", {"name objtype objname", kSensorCommon}},
      {"sensor/subtreecom sensor/subtreelinvel sensor/subtreeangmom", {"name body", kSensorCommon}},
      {"sensor/clock", {"name", kSensorCommon}},
      {"sensor/user", {"name objtype objname datatype needstage dim", kSensorCommon}},
      {"mujoco/keyframe", {}},
      {"keyframe/key", {"name time qpos qvel act mpos mquat ctrl"}},
  };
  return rows;
}

// Valid MJCF whose dynamics Talon does not simulate: reported, contents not checked.
const std::map<std::string, std::string, std::less<>> kUnsupported = {
    {"body/composite", "<composite> (procedurally generated bodies, joints and tendons)"},
    {"contact/pair", "explicit contact pairs (<pair>)"},
    {"equality/connect", "equality constraints (<connect>)"},
    {"equality/weld", "equality constraints (<weld>)"},
    {"equality/joint", "equality constraints (<joint>)"},
    {"equality/tendon", "equality constraints (<tendon>)"},
    {"equality/distance", "equality constraints (<distance>)"},
    {"tendon/spatial", "tendons (<spatial>)"},
    {"tendon/fixed", "tendons (<fixed>)"},
};

// Elements of MuJoCo releases after 2.2.2, refused wherever they appear.
const std::set<std::string, std::less<>> kNewerElements = {
    "plugin", "extension", "flexcomp", "flex", "deformable", "replicate", "frame", "attach"};

// MuJoCo's soft-contact and soft-constraint parameters.
const std::set<std::string, std::less<>> kSoftContactAttributes = {
    "solref",      "solimp",         "margin",         "gap",      "solmix",   "solreflimit",
    "solimplimit", "solreffriction", "solimpfriction", "o_margin", "o_solref", "o_solimp"};

struct SchemaEntry {
  std::set<std::string, std::less<>> attributes;
  bool unique = false;
};

std::vector<std::string> words(const char* text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const std::unordered_map<std::string, SchemaEntry>& schema() {
  static const auto table = [] {
    std::unordered_map<std::string, SchemaEntry> t;
    for (const SchemaRow& row : schema_rows()) {
      for (const std::string& key : words(row.keys)) {
        SchemaEntry& e = t[key];
        for (const char* group : row.attribute_groups) {
          const std::vector<std::string> attrs = words(group);
          e.attributes.insert(attrs.begin(), attrs.end());
        }
        e.unique = row.unique;
      }
    }
    return t;
  }();
  return table;
}

// The context an element gives its children: its own name, except that the world body
// has the children of a body.
std::string context_of(const std::string& element_name) {
  return element_name == "worldbody" ? "body" : element_name;
}

class SchemaChecker {
 public:
  explicit SchemaChecker(Diagnostics& diag) : diag_(diag) {}

  void run(const XmlTree& tree) {
    if (!check_element(tree.root(), "mujoco")) return;
    std::vector<int> stack{0};
    while (!stack.empty()) {
      const XmlNode& node = tree[stack.back()];
      stack.pop_back();
      const std::string context = node.parent < 0 ? "mujoco" : context_of(node.name);
      std::map<std::string, int> unique_counts;
      std::vector<int> to_visit;
      for (int index : node.children) {
        const XmlNode& child = tree[index];
        const std::string key = context + "/" + child.name;
        if (!check_element(child, key)) continue;
        if (schema().at(key).unique && ++unique_counts[key] > 1)
          report(diag_, child,
                 "element <" + child.name + "> may appear only once in <" + node.name + ">");
        to_visit.push_back(index);
      }
      stack.insert(stack.end(), to_visit.rbegin(), to_visit.rend());
    }
  }

 private:
  // Checks the element's name and attributes; false when its contents must not be visited.
  bool check_element(const XmlNode& node, const std::string& key) {
    if (kNewerElements.count(node.name)) {
      report(diag_, node,
             "unsupported: <" + node.name +
                 "> (not part of MuJoCo 2.2.2's MJCF; Talon does "
                 "not support it)");
      return false;
    }
    const auto found = schema().find(key);
    if (found == schema().end()) {
      report(diag_, node, "unknown element <" + node.name + ">");
      return false;
    }
    if (const auto unsupported = kUnsupported.find(key); unsupported != kUnsupported.end()) {
      report(diag_, node, "unsupported: " + unsupported->second);
      return false;
    }
    for (const XmlAttribute& a : node.attributes) {
      if (!found->second.attributes.count(a.name)) {
        report(diag_, node, "unknown attribute '" + a.name + "'");
      } else if (kSoftContactAttributes.count(a.name)) {
        diag_.note_once("mjcf-soft-contact", node.loc, node.label(),
                        "MuJoCo soft-contact parameters (solref/solimp/margin) are ignored: "
                        "Talon's contact is hard");
      }
    }
    return true;
  }

  Diagnostics& diag_;
};

}  // namespace

void check_schema(const XmlTree& tree, Diagnostics& diag) {
  SchemaChecker(diag).run(tree);
}

}  // namespace talon::mjcf
