"""Validate an XML document against an XML Schema (XSD) without lxml: the subset of XSD that schemas/junit.xsd uses,
read from the schema file itself, so that the schema is the one definition.

Supported: global and local ``xs:element`` (``name`` or ``ref``, ``type`` or an inline ``xs:complexType``,
``minOccurs``/``maxOccurs``); named and inline complex types with ``xs:sequence`` and ``xs:choice`` (nested, with
occurrences), ``xs:attribute`` (``use``, ``type``) and ``xs:simpleContent``/``xs:extension``; named simple types
restricting a built-in type (``minInclusive``, ``enumeration``); built-ins string, decimal, integer,
nonNegativeInteger and dateTime. Anything else in the schema raises NotImplementedError, so a schema this cannot
read is never half-checked. An element-only type refuses text; an undeclared attribute or element is an error, as
in XSD.
"""
import re
import xml.etree.ElementTree as ET

XS = "{http://www.w3.org/2001/XMLSchema}"
UNBOUNDED = float("inf")
_BUILTIN = {
    "string": lambda text: True,
    "decimal": lambda text: re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", text) is not None,
    "integer": lambda text: re.fullmatch(r"[+-]?\d+", text) is not None,
    "nonNegativeInteger": lambda text: re.fullmatch(r"\+?\d+", text) is not None,
    "dateTime": lambda text: re.fullmatch(r"-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", text)
    is not None,
}


class Schema:
    def __init__(self, path):
        self.root = ET.parse(path).getroot()
        self.elements = {node.get("name"): node for node in self.root.findall(XS + "element")}
        self.complex = {node.get("name"): node for node in self.root.findall(XS + "complexType")}
        self.simple = {node.get("name"): node for node in self.root.findall(XS + "simpleType")}
        known = {XS + "element", XS + "complexType", XS + "simpleType"}
        for node in self.root:
            if node.tag not in known:
                raise NotImplementedError("schema: top-level %s" % node.tag)

    # -- simple values --------------------------------------------------------------------------------------------
    def value_problem(self, type_name, text):
        """None when ``text`` is a value of the type, else why not."""
        name = type_name.split(":")[-1]
        if type_name.startswith("xs:"):
            if name not in _BUILTIN:
                raise NotImplementedError("schema: built-in type %s" % type_name)
            return None if _BUILTIN[name](text) else "%r is not an xs:%s" % (text, name)
        restriction = self.simple[name].find(XS + "restriction")
        problem = self.value_problem(restriction.get("base"), text)
        if problem:
            return problem
        for facet in restriction:
            if facet.tag == XS + "minInclusive" and float(text) < float(facet.get("value")):
                return "%s is below %s" % (text, facet.get("value"))
            if facet.tag == XS + "enumeration":
                allowed = [node.get("value") for node in restriction.findall(XS + "enumeration")]
                return None if text in allowed else "%r is not one of %s" % (text, allowed)
            if facet.tag not in (XS + "minInclusive", XS + "enumeration"):
                raise NotImplementedError("schema: facet %s" % facet.tag)
        return None

    # -- elements -------------------------------------------------------------------------------------------------
    def declaration(self, node):
        """(name, declaration node) of an xs:element, following ``ref``."""
        if node.get("ref"):
            return node.get("ref"), self.elements[node.get("ref")]
        return node.get("name"), node

    def validate(self, document_root):
        """Every problem of a parsed document (ElementTree root), one line each; [] when it is valid."""
        if document_root.tag not in self.elements:
            return ["root <%s> is not a global element of the schema" % document_root.tag]
        problems = []
        self.check_element(document_root, self.elements[document_root.tag], "/" + document_root.tag, problems)
        return problems

    def check_element(self, element, declaration, where, problems):
        type_name = declaration.get("type")
        if type_name is None:
            complex_type = declaration.find(XS + "complexType")
            if complex_type is None:
                raise NotImplementedError("schema: element %s without a type" % declaration.get("name"))
            return self.check_complex(element, complex_type, where, problems)
        if type_name.startswith("xs:") or type_name in self.simple:
            if len(element):
                problems.append("%s: holds elements, its type %s allows text only" % (where, type_name))
            problem = self.value_problem(type_name, element.text or "")
            if problem:
                problems.append("%s: %s" % (where, problem))
            return None
        return self.check_complex(element, self.complex[type_name], where, problems)

    def check_attributes(self, element, declarations, where, problems):
        declared = {node.get("name"): node for node in declarations}
        for name in element.attrib:
            if name not in declared:
                problems.append("%s: attribute %s is not declared" % (where, name))
        for name, node in declared.items():
            if name not in element.attrib:
                if node.get("use") == "required":
                    problems.append("%s: required attribute %s is missing" % (where, name))
                continue
            problem = self.value_problem(node.get("type", "xs:string"), element.attrib[name])
            if problem:
                problems.append("%s: attribute %s: %s" % (where, name, problem))

    def check_complex(self, element, complex_type, where, problems):
        simple_content = complex_type.find(XS + "simpleContent")
        if simple_content is not None:
            extension = simple_content.find(XS + "extension")
            if extension is None:
                raise NotImplementedError("schema: simpleContent without extension")
            self.check_attributes(element, extension.findall(XS + "attribute"), where, problems)
            if len(element):
                problems.append("%s: holds elements, its type allows text only" % where)
            problem = self.value_problem(extension.get("base"), element.text or "")
            if problem:
                problems.append("%s: %s" % (where, problem))
            return
        for node in complex_type:
            if node.tag not in (XS + "sequence", XS + "choice", XS + "attribute"):
                raise NotImplementedError("schema: %s in a complexType" % node.tag)
        self.check_attributes(element, complex_type.findall(XS + "attribute"), where, problems)
        texts = [element.text] + [child.tail for child in element]
        if any(text and text.strip() for text in texts):
            problems.append("%s: holds text, its type allows elements only" % where)
        model = [node for node in complex_type if node.tag in (XS + "sequence", XS + "choice")]
        children = list(element)
        ends = self.match(model[0], children, 0) if model else {0}
        if len(children) not in ends:
            matched = max(ends) if ends else 0
            problems.append("%s: unexpected <%s> as child %d" % (where, children[matched].tag, matched + 1)
                            if matched < len(children) else "%s: a required child is missing" % where)
            return
        self.check_children(children, model[0] if model else None, where, problems)

    # -- content models -------------------------------------------------------------------------------------------
    @staticmethod
    def occurs(node):
        high = node.get("maxOccurs", "1")
        return int(node.get("minOccurs", "1")), UNBOUNDED if high == "unbounded" else int(high)

    def match_once(self, particle, children, start):
        """The positions where one occurrence of ``particle`` that starts at ``start`` can end."""
        if particle.tag == XS + "element":
            name, _ = self.declaration(particle)
            return {start + 1} if start < len(children) and children[start].tag == name else set()
        if particle.tag == XS + "sequence":
            positions = {start}
            for part in particle:
                positions = {end for position in positions for end in self.match(part, children, position)}
            return positions
        if particle.tag == XS + "choice":
            return {end for part in particle for end in self.match(part, children, start)}
        raise NotImplementedError("schema: particle %s" % particle.tag)

    def match(self, particle, children, start):
        """The positions where ``particle`` with its occurrences, starting at ``start``, can end."""
        low, high = self.occurs(particle)
        ends, frontier, seen, count = set(), {start}, {start}, 0
        if low == 0:
            ends.add(start)
        while frontier and count < high:
            count += 1
            reached = {end for position in frontier for end in self.match_once(particle, children, position)}
            if count >= low:
                ends |= reached
            # A particle that matched nothing (all of it optional) cannot match more by repeating.
            frontier = reached - seen
            seen |= reached
        return ends

    def element_declarations(self, particle):
        """name -> declaration of every element a content model allows."""
        if particle.tag == XS + "element":
            name, declaration = self.declaration(particle)
            return {name: declaration}
        found = {}
        for part in particle:
            found.update(self.element_declarations(part))
        return found

    def check_children(self, children, model, where, problems):
        declarations = self.element_declarations(model) if model is not None else {}
        for index, child in enumerate(children, 1):
            self.check_element(child, declarations[child.tag], "%s/%s[%d]" % (where, child.tag, index), problems)


def problems(schema_path, xml_text):
    """Every problem of ``xml_text`` against the schema at ``schema_path``; [] when it is valid."""
    try:
        root = ET.fromstring(xml_text.encode("utf-8") if isinstance(xml_text, str) else xml_text)
    except ET.ParseError as exc:
        return ["not well-formed XML: %s" % exc]
    return Schema(schema_path).validate(root)
